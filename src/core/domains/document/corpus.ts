import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Bm25Index } from "./bm25";
import { readCached, sha256, writeCached } from "./cache";
import { type Chunk, chunkPage } from "./chunk";
import { formatOf, parseDocument } from "./parse";
import { PageRanker } from "./retrieval/ranker";
import { DocumentError, type ParsedDocument } from "./types";

/** An environment's documents, parsed and indexed: shared read-only by every rollout. */
export interface Corpus {
  dir: string;
  documents: ParsedDocument[];
  /** Files that could not be read, each naming the file; the other documents still load. */
  problems: DocumentError[];
  chunks: Chunk[];
  /** Plain BM25 over chunks: the ranker before the page ranker, kept for comparison. */
  index: Bm25Index;
  /** The finance-aware page ranker that `search` uses. */
  ranker: PageRanker;
  /** How many documents were parsed now rather than read from the cache. */
  parsed: number;
}

/** Files under `dir` the domain reads, relative with '/' separators, sorted. */
export function listDocumentFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && formatOf(e.name)) out.push(r);
    }
  };
  walk("");
  return out.sort();
}

/** Parse (or fetch from the content-hash cache) and index every document under `dir`. */
export async function buildCorpus(dir: string, chunkTokens: number): Promise<Corpus> {
  const documents: ParsedDocument[] = [];
  const problems: DocumentError[] = [];
  let parsed = 0;
  for (const name of listDocumentFiles(dir)) {
    const format = formatOf(name)!;
    const file = path.join(dir, name);
    try {
      const bytes = new Uint8Array(readFileSync(file));
      const hash = sha256(bytes);
      let pages = readCached(hash, format);
      if (!pages) {
        pages = await parseDocument(bytes, format, file);
        writeCached(hash, format, pages);
        parsed++;
      }
      documents.push({ name, format, bytes: bytes.length, sha256: hash, pages });
    } catch (e) {
      problems.push(e instanceof DocumentError ? e : new DocumentError(file, (e as Error).message));
    }
  }
  const chunks: Chunk[] = [];
  documents.forEach((d, i) => {
    for (const p of d.pages) chunks.push(...chunkPage(i, p, chunkTokens));
  });
  const index = new Bm25Index(chunks);
  // The index holds its own posting lists; the per-chunk term maps would double the memory.
  for (const c of chunks) c.terms.clear();
  const ranker = new PageRanker(documents);
  return { dir, documents, problems, chunks, index, ranker, parsed };
}

const loaded = new Map<string, Promise<Corpus>>();

/**
 * The corpus for an environment's documents folder, built once per process and per
 * folder state (names, sizes, modification times), however many rollouts ask at once.
 */
export function loadCorpus(dir: string, chunkTokens: number): Promise<Corpus> {
  const state = listDocumentFiles(dir)
    .map((f) => {
      const st = statSync(path.join(dir, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join("|");
  const key = `${path.resolve(dir)}\0${chunkTokens}\0${state}`;
  let p = loaded.get(key);
  if (!p) {
    p = buildCorpus(dir, chunkTokens);
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}

/** The document an agent named: exact name, else the unique one with that base name or stem. */
export function findDocument(corpus: Corpus, name: string): ParsedDocument | undefined {
  const exact = corpus.documents.find((d) => d.name === name);
  if (exact) return exact;
  const stem = (n: string) => path.posix.basename(n).replace(/\.[^.]+$/, "").toLowerCase();
  const want = stem(name);
  const same = corpus.documents.filter((d) => stem(d.name) === want);
  return same.length === 1 ? same[0] : undefined;
}

/** Text of a page (1-based) of a named document, or undefined. */
export function pageText(corpus: Corpus, document: string, page: number): string | undefined {
  return findDocument(corpus, document)?.pages.find((p) => p.number === page)?.text;
}
