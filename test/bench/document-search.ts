// Search over a synthetic 1,000,000-token corpus: index build time, query latency (p50,
// p95) and memory of the BM25 inverted index, against a regular-expression scan of the
// same text in the same run. Run: npx tsx test/bench/document-search.ts
import { existsSync } from "node:fs";
import path from "node:path";
import { Bm25Index } from "../../src/core/domains/document/bm25";
import { type Chunk, chunkPage } from "../../src/core/domains/document/chunk";
import { buildCorpus } from "../../src/core/domains/document/corpus";
import { queryTerms } from "../../src/core/domains/document/tokenize";
import type { DocumentPage } from "../../src/core/domains/document/types";

const TOKENS = 1_000_000;
const WORDS_PER_PAGE = 500;
const QUERIES = 200;

/** A deterministic generator (mulberry32), so every run indexes the same text. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pages of filing-like text: a Zipf-distributed vocabulary of 30,000 words mixed with figures. */
function corpus(): DocumentPage[] {
  const rand = rng(42);
  const vocab = Array.from({ length: 30_000 }, (_, i) => {
    let w = "";
    let n = i + 1;
    while (n > 0) {
      w += "abcdefghijklmnopqrstuvwxyz"[n % 26];
      n = Math.floor(n / 26);
    }
    return `${w}${"aeiou"[i % 5]}`;
  });
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * Math.log(vocab.length))) - 1)]!;
  const pages: DocumentPage[] = [];
  let words = 0;
  while (words < TOKENS) {
    const parts: string[] = [];
    for (let i = 0; i < WORDS_PER_PAGE; i++) parts.push(rand() < 0.08 ? `$${Math.floor(rand() * 90_000).toLocaleString("en-US")}` : zipf());
    words += WORDS_PER_PAGE;
    pages.push({ number: pages.length + 1, text: parts.join(rand() < 0.1 ? "\n" : " ") });
  }
  return pages;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

/** The committed FinanceBench filings (text per page): load and index them as a rollout does. */
async function realCorpus(): Promise<void> {
  const dir = path.join(__dirname, "..", "..", "environments", "document-financebench", "documents");
  if (!existsSync(dir)) return console.log("financebench: environments/document-financebench is not built; skipped");
  const t0 = performance.now();
  const corpus = await buildCorpus(dir, 200);
  const ms = performance.now() - t0;
  const chars = corpus.documents.reduce((s, d) => s + d.pages.reduce((x, p) => x + p.text.length, 0), 0);
  const lat: number[] = [];
  for (const q of [
    "total revenue",
    "net income attributable to shareholders",
    "property plant and equipment net",
    "inventories",
    "operating income",
    "restructuring liability employee",
  ]) {
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      corpus.index.search(queryTerms(q), 5);
      lat.push(performance.now() - t);
    }
  }
  console.log(
    `financebench (31 filings, ${(chars / 1e6).toFixed(1)} M chars, ${corpus.chunks.length} chunks): load + index ${(ms / 1000).toFixed(2)} s, query p50 ${percentile(lat, 50).toFixed(3)} ms`,
  );
}

async function main(): Promise<void> {
  const pages = corpus();
  const chars = pages.reduce((s, p) => s + p.text.length, 0);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const chunks: Chunk[] = [];
  for (const p of pages) chunks.push(...chunkPage(0, p, 200));
  const index = new Bm25Index(chunks);
  const buildMs = performance.now() - t0;
  // The term maps are only needed to build; the index keeps its own posting arrays.
  for (const c of chunks) c.terms.clear();
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;

  const rand = rng(7);
  const queries = Array.from({ length: QUERIES }, () => {
    const page = pages[Math.floor(rand() * pages.length)]!.text.split(/\s+/);
    const at = Math.floor(rand() * (page.length - 3));
    return page.slice(at, at + 1 + Math.floor(rand() * 3)).join(" ");
  });

  const bm25: number[] = [];
  let hits = 0;
  for (const q of queries) {
    const t = performance.now();
    hits += index.search(queryTerms(q), 5).length;
    bm25.push(performance.now() - t);
  }

  // Baseline: what a tool without an index does, a case-insensitive regex over every page, ranked by match count.
  const scan: number[] = [];
  for (const q of queries.slice(0, 40)) {
    const t = performance.now();
    const terms = queryTerms(q).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const re = new RegExp(`\\b(?:${terms.join("|")})\\b`, "gi");
    const counts: Array<[number, number]> = [];
    for (const p of pages) {
      const n = p.text.match(re)?.length ?? 0;
      if (n) counts.push([p.number, n]);
    }
    counts.sort((a, b) => b[1] - a[1]);
    scan.push(performance.now() - t);
  }

  const p50 = percentile(bm25, 50);
  const scanP50 = percentile(scan, 50);
  console.log(
    `corpus: ${TOKENS.toLocaleString()} tokens, ${pages.length} pages, ${(chars / 1e6).toFixed(1)} M chars, ${chunks.length} chunks, ${index.vocabulary} terms`,
  );
  console.log(`index build: ${(buildMs / 1000).toFixed(2)} s (goal < 10 s)`);
  console.log(
    `index memory: ${mb(heapAfter - heapBefore)} MB heap over the text (${global.gc ? "after gc" : "run with --expose-gc for an exact figure"}); rss ${mb(process.memoryUsage().rss)} MB`,
  );
  console.log(
    `bm25 query: p50 ${p50.toFixed(3)} ms, p95 ${percentile(bm25, 95).toFixed(3)} ms over ${QUERIES} queries (goal p50 < 5 ms); ${(hits / QUERIES).toFixed(1)} hits per query`,
  );
  console.log(`regex scan baseline: p50 ${scanP50.toFixed(1)} ms, p95 ${percentile(scan, 95).toFixed(1)} ms over ${scan.length} queries`);
  console.log(`speed-up of the index over the scan at p50: ${(scanP50 / p50).toFixed(0)}x`);
  await realCorpus();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
