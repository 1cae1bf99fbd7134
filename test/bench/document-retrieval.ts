// Retrieval quality and speed on the shipped FinanceBench questions: one search with the
// question's text (the "The filing is …" line removed), and whether a gold evidence page
// is among the first 5 / 10 distinct pages — within the question's filing and across all
// filings — for the finance-aware page ranker against the plain BM25 chunk index (the
// ranker before it), both in this run. Then search latency (p50, p95) of both on the
// committed filings and on a synthetic corpus of at least 1,000,000 tokens.
// Run: npx tsx test/bench/document-retrieval.ts
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildCorpus, type Corpus } from "../../src/core/domains/document/corpus";
import { PageRanker } from "../../src/core/domains/document/retrieval/ranker";
import { queryTerms, tokenize } from "../../src/core/domains/document/tokenize";
import type { ParsedDocument } from "../../src/core/domains/document/types";

const env = path.join(__dirname, "..", "..", "environments", "document-financebench");

interface Question {
  id: string;
  text: string;
  doc: number;
  evidence: Set<number>;
}

function questions(corpus: Corpus): Question[] {
  return readFileSync(path.join(env, "tasks.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; prompt: string; target: { evidence?: Array<{ document: string; page: number }> } })
    .filter((t) => t.target.evidence?.length)
    .map((t) => {
      const name = t.target.evidence![0]!.document;
      return {
        id: t.id,
        text: t.prompt.replace(/\n+The filing is [^\n]*$/, "").trim(),
        doc: corpus.documents.findIndex((d) => d.name === name),
        evidence: new Set(t.target.evidence!.filter((e) => e.document === name).map((e) => e.page)),
      };
    });
}

/** Distinct (document, page) pairs in the order the old BM25 chunk index ranks them. */
function bm25Pages(corpus: Corpus, text: string, k: number, onlyDoc?: number): Array<[number, number]> {
  const hits = corpus.index.search(queryTerms(text), 400, onlyDoc === undefined ? undefined : (c) => corpus.chunks[c]?.doc === onlyDoc);
  const seen = new Set<string>();
  const out: Array<[number, number]> = [];
  for (const h of hits) {
    const c = corpus.chunks[h.chunk]!;
    const key = `${c.doc}:${c.page}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([c.doc, c.page]);
    if (out.length === k) break;
  }
  return out;
}

function recall(qs: Question[], rank: (q: Question) => Array<[number, number]>): { r5: number; r10: number; misses: string[] } {
  let r5 = 0;
  let r10 = 0;
  const misses: string[] = [];
  for (const q of qs) {
    const pages = rank(q);
    const at = pages.findIndex(([d, p]) => d === q.doc && q.evidence.has(p));
    if (at >= 0 && at < 5) r5++;
    if (at >= 0 && at < 10) r10++;
    else misses.push(q.id);
  }
  return { r5: r5 / qs.length, r10: r10 / qs.length, misses };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function timeQueries(texts: string[], run: (t: string) => unknown, rounds: number): number[] {
  for (const t of texts) run(t);
  const lat: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const t of texts) {
      const t0 = performance.now();
      run(t);
      lat.push(performance.now() - t0);
    }
  }
  return lat;
}

/** Filing-like pages: prose, and table rows (label, tab, figures), to at least `tokens` tokens. */
function syntheticDocuments(tokens: number, real: ParsedDocument[]): ParsedDocument[] {
  // Real pages, shuffled into new "filings" and repeated until the corpus is large enough, keep
  // the vocabulary and table shapes of real filings.
  const pages = real.flatMap((d) => d.pages.map((p) => p.text));
  const out: ParsedDocument[] = [];
  let count = 0;
  let i = 0;
  while (count < tokens) {
    const docPages = [];
    for (let n = 1; n <= 100; n++) {
      const text = pages[(i * 7919 + n * 104729) % pages.length]!;
      count += tokenize(text).length;
      docPages.push({ number: n, text });
    }
    out.push({ name: `SYNTH${i}_${2000 + (i % 24)}_10K.txt`, format: "text", bytes: 0, sha256: "", pages: docPages });
    i++;
  }
  return out;
}

async function main(): Promise<void> {
  const corpus = await buildCorpus(path.join(env, "documents"), 200);
  const t0 = performance.now();
  const ranker = new PageRanker(corpus.documents);
  const buildMs = performance.now() - t0;
  const qs = questions(corpus);
  const tokens = corpus.documents.reduce((s, d) => s + d.pages.reduce((x, p) => x + tokenize(p.text).length, 0), 0);
  console.log(
    `${qs.length} questions over ${corpus.documents.length} filings (${ranker.pageCount} pages, ${(tokens / 1e6).toFixed(2)} M tokens); page ranker built in ${buildMs.toFixed(0)} ms`,
  );
  const table: Array<[string, ReturnType<typeof recall>]> = [
    ["BM25 chunks, within filing", recall(qs, (q) => bm25Pages(corpus, q.text, 10, q.doc))],
    ["page ranker, within filing", recall(qs, (q) => ranker.search(q.text, 10, q.doc).map((h) => [h.doc, h.page]))],
    ["BM25 chunks, all filings", recall(qs, (q) => bm25Pages(corpus, q.text, 10))],
    ["page ranker, all filings", recall(qs, (q) => ranker.search(q.text, 10).map((h) => [h.doc, h.page]))],
  ];
  for (const [name, r] of table)
    console.log(
      `${name.padEnd(28)} recall@5 ${r.r5.toFixed(2)}  recall@10 ${r.r10.toFixed(2)}  (missed@10: ${r.misses.join(" ") || "none"})`,
    );

  const texts = qs.map((q) => q.text);
  const oldLat = timeQueries(texts, (t) => corpus.index.search(queryTerms(t), 10), 5);
  const newLat = timeQueries(texts, (t) => ranker.search(t, 10), 5);
  console.log(
    `latency on the filings: BM25 p50 ${percentile(oldLat, 50).toFixed(2)} ms, page ranker p50 ${percentile(newLat, 50).toFixed(2)} ms (${(percentile(newLat, 50) / percentile(oldLat, 50)).toFixed(1)}×), p95 ${percentile(newLat, 95).toFixed(2)} ms`,
  );

  const big = syntheticDocuments(1_000_000, corpus.documents);
  const bigTokens = big.reduce((s, d) => s + d.pages.reduce((x, p) => x + tokenize(p.text).length, 0), 0);
  const t1 = performance.now();
  const bigRanker = new PageRanker(big);
  const bigBuild = performance.now() - t1;
  const bigCorpus = await buildCorpusFrom(big);
  const bigOld = timeQueries(texts, (t) => bigCorpus.index.search(queryTerms(t), 10), 3);
  const bigNew = timeQueries(texts, (t) => bigRanker.search(t, 10), 3);
  console.log(
    `${(bigTokens / 1e6).toFixed(2)} M-token corpus (${bigRanker.pageCount} pages, built in ${(bigBuild / 1000).toFixed(1)} s): BM25 p50 ${percentile(bigOld, 50).toFixed(2)} ms, page ranker p50 ${percentile(bigNew, 50).toFixed(2)} ms (${(percentile(bigNew, 50) / percentile(bigOld, 50)).toFixed(1)}× BM25), p95 ${percentile(bigNew, 95).toFixed(2)} ms`,
  );
}

/** The old chunk index over in-memory documents. */
async function buildCorpusFrom(docs: ParsedDocument[]): Promise<{ index: Corpus["index"] }> {
  const { chunkPage } = await import("../../src/core/domains/document/chunk");
  const { Bm25Index } = await import("../../src/core/domains/document/bm25");
  const chunks = docs.flatMap((d, i) => d.pages.flatMap((p) => chunkPage(i, p, 200)));
  return { index: new Bm25Index(chunks) };
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
