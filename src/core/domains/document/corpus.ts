import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Bm25Index } from "./bm25";
import { readCached, sha256, writeCached } from "./cache";
import { corpusKey, loadIndex, type SavedIndex, saveIndex } from "./index-store";
import { type Chunk, chunkPage } from "./chunk";
import { formatOf } from "./parse";
import { parseInWorkers } from "./parse/pool";
import { PageRanker } from "./retrieval/ranker";
import { DocumentError, type DocumentFormat, type DocumentPage, type ParsedDocument } from "./types";

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
  /** Whether the index was loaded as saved by an earlier build rather than built now. */
  fromIndex: boolean;
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

/** What indexing a corpus reports as it goes: files parsed so far of those not in the cache. */
export interface CorpusProgress {
  parsed: number;
  toParse: number;
  cached: number;
  file?: string;
}

export interface BuildCorpusOptions {
  onProgress?: (p: CorpusProgress) => void;
}

interface FoundFile {
  name: string;
  format: DocumentFormat;
  file: string;
  bytes: number;
  hash: string;
  pages?: DocumentPage[];
}

/** Every document file under `dir` with its content hash; a file that cannot be read is a problem naming it. */
function hashDocumentFiles(dir: string): { found: FoundFile[]; problems: DocumentError[] } {
  const problems: DocumentError[] = [];
  const found: FoundFile[] = [];
  for (const name of listDocumentFiles(dir)) {
    const format = formatOf(name)!;
    const file = path.join(dir, name);
    try {
      const bytes = readFileSync(file);
      found.push({ name, format, file, bytes: bytes.length, hash: sha256(bytes) });
    } catch (e) {
      problems.push(new DocumentError(file, (e as Error).message));
    }
  }
  return { found, problems };
}

/**
 * Parse (or fetch from the content-hash cache) and index every document under `dir`.
 * Files not in the cache are parsed in worker threads, one per core. A corpus indexed
 * before (same files by content hash, same chunk size, parser and index versions) loads
 * from its saved index instead: no page is re-tokenized.
 */
export async function buildCorpus(dir: string, chunkTokens: number, opts: BuildCorpusOptions = {}): Promise<Corpus> {
  const { found, problems } = hashDocumentFiles(dir);
  const key = corpusKey(found, chunkTokens);
  // A corpus with an unreadable file is not saved (see below), so it is never looked for.
  const saved = problems.length ? undefined : loadIndex(key);
  if (saved) {
    opts.onProgress?.({ parsed: 0, toParse: 0, cached: found.length });
    return { dir, ...saved, problems, parsed: 0, fromIndex: true };
  }
  for (const f of found) {
    const pages = readCached(f.hash, f.format);
    if (pages) f.pages = pages;
  }
  const missing = found.filter((f) => !f.pages);
  const cached = found.length - missing.length;
  let done = 0;
  opts.onProgress?.({ parsed: 0, toParse: missing.length, cached });
  const parsedPages = await parseInWorkers(
    missing.map((f) => ({ file: f.file, format: f.format })),
    (i) => opts.onProgress?.({ parsed: ++done, toParse: missing.length, cached, file: missing[i]!.name }),
  );
  missing.forEach((f, i) => {
    const r = parsedPages[i]!;
    if (r instanceof DocumentError) return;
    writeCached(f.hash, f.format, r);
    f.pages = r;
  });
  const documents: ParsedDocument[] = [];
  for (const f of found) {
    const r = f.pages ?? parsedPages[missing.indexOf(f)];
    if (!r || r instanceof DocumentError) {
      problems.push(r instanceof DocumentError ? r : new DocumentError(f.file, "not parsed"));
      continue;
    }
    documents.push({ name: f.name, format: f.format, bytes: f.bytes, sha256: f.hash, pages: r });
  }
  problems.sort((a, b) => a.file.localeCompare(b.file));
  const parsed = missing.filter((f) => f.pages).length;
  const built = indexDocuments(documents, chunkTokens);
  // A parse failure may not recur (a worker killed for memory): such a corpus is rebuilt next time, not saved.
  if (!problems.length) saveIndex(key, built);
  return { dir, ...built, problems, parsed, fromIndex: false };
}

/** Chunk, BM25-index and rank-index parsed documents. */
export function indexDocuments(documents: ParsedDocument[], chunkTokens: number): SavedIndex {
  const chunks: Chunk[] = [];
  documents.forEach((d, i) => {
    for (const p of d.pages) chunks.push(...chunkPage(i, p, chunkTokens));
  });
  const index = new Bm25Index(chunks);
  // The index holds its own posting lists; the per-chunk term maps would double the memory.
  for (const c of chunks) c.terms.clear();
  const ranker = new PageRanker(documents);
  return { documents, chunks, index, ranker };
}

const loaded = new Map<string, Promise<Corpus>>();

/**
 * The corpus for an environment's documents folder, built once per process and per
 * folder state (names, sizes, modification times), however many rollouts ask at once.
 */
export function loadCorpus(dir: string, chunkTokens: number, opts: BuildCorpusOptions = {}): Promise<Corpus> {
  const state = listDocumentFiles(dir)
    .map((f) => {
      const st = statSync(path.join(dir, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join("|");
  const key = `${path.resolve(dir)}\0${chunkTokens}\0${state}`;
  let p = loaded.get(key);
  if (!p) {
    p = buildCorpus(dir, chunkTokens, opts);
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}

/** The document an agent named: exact name, else the unique one with that base name or stem. */
export function findDocument(corpus: Corpus, name: string): ParsedDocument | undefined {
  const exact = corpus.documents.find((d) => d.name === name);
  if (exact) return exact;
  const stem = (n: string) =>
    path.posix
      .basename(n)
      .replace(/\.[^.]+$/, "")
      .toLowerCase();
  const want = stem(name);
  const same = corpus.documents.filter((d) => stem(d.name) === want);
  return same.length === 1 ? same[0] : undefined;
}

/** Text of a page (1-based) of a named document, or undefined. */
export function pageText(corpus: Corpus, document: string, page: number): string | undefined {
  return findDocument(corpus, document)?.pages.find((p) => p.number === page)?.text;
}
