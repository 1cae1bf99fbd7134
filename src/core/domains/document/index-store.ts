import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { Bm25Index, type Bm25Snapshot } from "./bm25";
import { cacheDir, PARSER_VERSION } from "./cache";
import type { Chunk } from "./chunk";
import { PageRanker, type RankerSnapshot } from "./retrieval/ranker";
import { FINANCE_VOCABULARY } from "./retrieval/vocabulary";
import type { DocumentFormat, ParsedDocument } from "./types";

/**
 * Bump when chunking, tokenizing, row finding, statement tagging or BM25 change what an
 * index holds, so an index saved by an older build is rebuilt rather than trusted.
 */
export const INDEX_VERSION = 1;

/** How many saved indexes to keep; the least recently used go first. */
const KEEP = 16;

const MAGIC = "RLIX";

/** What a saved index gives back: everything `buildCorpus` builds from parsed pages. */
export interface SavedIndex {
  documents: ParsedDocument[];
  chunks: Chunk[];
  index: Bm25Index;
  ranker: PageRanker;
}

interface Stored {
  /** Each document without its pages, and how many pages it has: the pages' texts are one string table. */
  documents: Array<Omit<ParsedDocument, "pages"> & { pages: number }>;
  pageNumbers: Int32Array;
  pageTexts: string[];
  chunks: { doc: Int32Array; page: Int32Array; start: Int32Array; end: Int32Array; length: Int32Array };
  index: Bm25Snapshot;
  ranker: RankerSnapshot;
}

/**
 * The corpus hash: every file's name, format and content hash, with the chunk size and the
 * versions of the parser, the index and the finance vocabulary the ranker tags pages with.
 */
export function corpusKey(files: ReadonlyArray<{ name: string; format: DocumentFormat; hash: string }>, chunkTokens: number): string {
  const vocab = JSON.stringify(FINANCE_VOCABULARY, (_k, v: unknown) => (v instanceof Set ? [...v] : v));
  const h = createHash("sha256");
  h.update(JSON.stringify({ parser: PARSER_VERSION, index: INDEX_VERSION, chunkTokens, vocab }));
  for (const f of files) h.update(`\0${f.name}\0${f.format}\0${f.hash}`);
  return h.digest("hex");
}

function indexDir(): string {
  return path.join(cacheDir(), "index");
}

function indexFile(key: string): string {
  return path.join(indexDir(), `${key}.v${INDEX_VERSION}.bin`);
}

/** The saved index for this corpus hash, or undefined: a missing, stale or damaged file is a miss, never an error. */
export function loadIndex(key: string): SavedIndex | undefined {
  const file = indexFile(key);
  let stored: Stored;
  try {
    stored = unpack(readWhole(file), key) as Stored;
    const c = stored.chunks;
    const chunks: Chunk[] = Array.from(c.doc, (doc, i) => ({
      doc,
      page: c.page[i]!,
      start: c.start[i]!,
      end: c.end[i]!,
      terms: new Map<string, number>(),
      length: c.length[i]!,
    }));
    const documents = withPages(stored);
    const index = new Bm25Index(stored.index);
    const ranker = new PageRanker(documents, FINANCE_VOCABULARY, stored.ranker);
    const now = new Date();
    utimesSync(file, now, now);
    return { documents, chunks, index, ranker };
  } catch {
    return undefined;
  }
}

function withPages(stored: Stored): ParsedDocument[] {
  let at = 0;
  return stored.documents.map((d) => {
    const pages = Array.from({ length: d.pages }, (_, i) => ({ number: stored.pageNumbers[at + i]!, text: stored.pageTexts[at + i]! }));
    if (pages.some((p) => p.text === undefined || p.number === undefined)) throw new Error("damaged index file");
    at += d.pages;
    return { ...d, pages };
  });
}

/** A file in a buffer of its own (not a slice of Node's pool), so typed arrays can view it without a copy. */
function readWhole(file: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafeSlow(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, at);
      if (n === 0) throw new Error("index file shrank while read");
      at += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** Save a built index under its corpus hash (temp file then rename); a full or read-only disk only costs a rebuild. */
export function saveIndex(key: string, built: SavedIndex): void {
  const chunks = built.chunks;
  const pages = built.documents.flatMap((d) => d.pages);
  const stored: Stored = {
    documents: built.documents.map(({ pages, ...d }) => ({ ...d, pages: pages.length })),
    pageNumbers: Int32Array.from(pages, (p) => p.number),
    pageTexts: pages.map((p) => p.text),
    chunks: {
      doc: Int32Array.from(chunks, (c) => c.doc),
      page: Int32Array.from(chunks, (c) => c.page),
      start: Int32Array.from(chunks, (c) => c.start),
      end: Int32Array.from(chunks, (c) => c.end),
      length: Int32Array.from(chunks, (c) => c.length),
    },
    index: built.index.snapshot(),
    ranker: built.ranker.snapshot(),
  };
  try {
    const file = indexFile(key);
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, pack(stored, key));
    renameSync(tmp, file);
    prune();
  } catch {
    // Only costs a rebuild next time.
  }
}

/** Keep the KEEP most recently used indexes (loadIndex touches what it reads). */
function prune(): void {
  const dir = indexDir();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".bin"))
    .map((f) => ({ f, t: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of files.slice(KEEP)) unlinkSync(path.join(dir, f));
}

type Typed = Int32Array | Float64Array;

/** Arrays of this many strings or more are stored as bytes and offsets: decoding those is a copy, parsing JSON strings is not. */
const STRING_TABLE_MIN = 64;

function isStringArray(v: unknown[]): v is string[] {
  return v.length >= STRING_TABLE_MIN && v.every((x) => typeof x === "string");
}

/**
 * One file: "RLIX", the header's byte length (uint32 LE), the header (JSON: the key, the
 * value with each typed array replaced by {"$a": n}, and each array's type, offset, length),
 * then the arrays' bytes, each at an offset that is a multiple of 8 so they load as views.
 */
export function pack(value: unknown, key: string): Buffer {
  const arrays: Array<Typed | Buffer> = [];
  const walk = (v: unknown): unknown => {
    if (v instanceof Int32Array || v instanceof Float64Array) return { $a: arrays.push(v) - 1 };
    if (Array.isArray(v) && isStringArray(v)) {
      // UTF-8, each string's end a byte offset: an ASCII page decodes to a one-byte string, half the memory of UTF-16.
      const parts = v.map((x) => Buffer.from(x, "utf8"));
      const ends = new Int32Array(parts.length);
      let end = 0;
      parts.forEach((x, i) => {
        end += x.length;
        ends[i] = end;
      });
      return { $s: arrays.push(Buffer.concat(parts, end)) - 1, ends: walk(ends) };
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const body = walk(value);
  let offset = 0;
  const layout = arrays.map((a) => {
    const at = offset;
    offset += Math.ceil(a.byteLength / 8) * 8;
    return [a instanceof Int32Array ? "i32" : a instanceof Float64Array ? "f64" : "u8", at, a.length] as const;
  });
  const header = Buffer.from(JSON.stringify({ key, layout, body }));
  const start = Math.ceil((8 + header.length) / 8) * 8;
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(header.length, 4);
  header.copy(out, 8);
  arrays.forEach((a, i) => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + layout[i]![1]);
  });
  return out;
}

/** The value `pack` wrote, its arrays as views on one copy of the bytes; throws on a damaged file or another key. */
export function unpack(buf: Buffer, key: string): unknown {
  if (buf.toString("latin1", 0, 4) !== MAGIC) throw new Error("not an index file");
  const headerLength = buf.readUInt32LE(4);
  const header = JSON.parse(buf.toString("utf8", 8, 8 + headerLength)) as {
    key: string;
    layout: Array<["i32" | "f64" | "u8", number, number]>;
    body: unknown;
  };
  if (header.key !== key) throw new Error("another corpus");
  const start = Math.ceil((8 + headerLength) / 8) * 8;
  // Views need 8-byte alignment: readWhole's buffer starts its own ArrayBuffer; any other is copied once.
  const bytes = (buf.byteOffset % 8 === 0 ? buf.buffer : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length)) as ArrayBuffer;
  const base = buf.byteOffset % 8 === 0 ? buf.byteOffset + start : start;
  const arrays = header.layout.map(([type, at, length]) =>
    type === "i32"
      ? new Int32Array(bytes, base + at, length)
      : type === "f64"
        ? new Float64Array(bytes, base + at, length)
        : Buffer.from(bytes, base + at, length),
  );
  const array = (ref: number) => {
    const a = arrays[ref];
    if (!a) throw new Error("damaged index file");
    return a;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const { $a, $s, ends } = v as { $a?: unknown; $s?: unknown; ends?: unknown };
      if (typeof $a === "number") return array($a);
      if (typeof $s === "number") return strings(array($s) as Buffer, walk(ends) as Int32Array);
      for (const [k, x] of Object.entries(v)) (v as Record<string, unknown>)[k] = walk(x);
    }
    return v;
  };
  return walk(header.body);
}

/** A string table back as strings, each decoded from its own bytes. */
function strings(bytes: Buffer, ends: Int32Array): string[] {
  const out = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    if (end < start || end > bytes.length) throw new Error("damaged index file");
    out[i] = bytes.toString("utf8", start, end);
    start = end;
  }
  return out;
}
