import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import type { Span } from "../model/problem";

/** Caps on what the loader reads, so that a hostile folder costs bounded time and memory. */
export interface LoadLimits {
  /** Bytes of environment.yaml (and of a folder task's task.yaml). */
  maxManifestBytes: number;
  /** Bytes of a prompt file. */
  maxPromptBytes: number;
  /** Bytes of a JSONL tasks file. */
  maxTasksBytes: number;
  /** Lines of a JSONL tasks file. */
  maxTaskLines: number;
  /** Problems kept per tasks file; past it one problem says how many more there were. */
  maxProblemsPerFile: number;
}

export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxManifestBytes: 4 * 1024 * 1024,
  maxPromptBytes: 4 * 1024 * 1024,
  maxTasksBytes: 512 * 1024 * 1024,
  maxTaskLines: 1_000_000,
  maxProblemsPerFile: 1000,
};

/** Why a source file cannot be read as text, and where in it (1:1 unless a bad byte is found). */
export type SourceRead = { ok: true; text: string } | { ok: false; span: Span; message: string };

const AT_START: Span = { line: 1, column: 1, endLine: 1, endColumn: 1 };

function kindOf(st: Stats): string {
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isDirectory()) return "a folder";
  return "not a plain file";
}

function mib(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${n} bytes`;
}

/**
 * Reads a file of an environment as UTF-8 text, refusing what a text file cannot be:
 * anything but a regular file (a FIFO would block the read forever; it is refused from
 * its lstat/stat, never opened), a file over `maxBytes`, and bytes that are not UTF-8 (a
 * UTF-16 or UTF-32 file is named as such). A UTF-8 byte-order mark is dropped.
 */
export function readSourceText(file: string, maxBytes: number): SourceRead {
  const refuse = (message: string, span: Span = AT_START): SourceRead => ({ ok: false, span, message });
  const l = lstatSync(file, { throwIfNoEntry: false });
  if (!l) return refuse("the file does not exist");
  // A link (already checked to stay inside the folder) is judged by what it points at.
  const st = l.isSymbolicLink() ? statSync(file, { throwIfNoEntry: false }) : l;
  if (!st) return refuse("the file is a link to nothing");
  if (!st.isFile()) return refuse(`the file is ${kindOf(st)}, not a regular file: refused without opening it`);
  if (st.size > maxBytes) return refuse(`the file is ${mib(st.size)}, larger than the limit of ${mib(maxBytes)}`);
  let buf: Buffer;
  // O_NONBLOCK: should the file have been swapped for a FIFO since the stat, the open does not wait for a writer.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const f = fstatSync(fd);
    if (!f.isFile()) return refuse(`the file is ${kindOf(f)}, not a regular file`);
    if (f.size > maxBytes) return refuse(`the file is ${mib(f.size)}, larger than the limit of ${mib(maxBytes)}`);
    buf = Buffer.allocUnsafe(f.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    buf = buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
  return decodeUtf8(buf);
}

/** UTF-8 text of the bytes, or why they are not UTF-8 and where the first bad byte is. */
export function decodeUtf8(buf: Buffer): SourceRead {
  const wide = wideEncoding(buf);
  if (wide) return { ok: false, span: AT_START, message: `the file is encoded as ${wide}; save it as UTF-8` };
  const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (isUtf8(buf)) return { ok: true, text: buf.toString("utf8", bom) };
  const bad = firstInvalidUtf8(buf);
  let lineStart = buf.lastIndexOf(0x0a, bad - 1) + 1;
  let line = 1;
  for (let i = buf.indexOf(0x0a); i !== -1 && i < bad; i = buf.indexOf(0x0a, i + 1)) line++;
  if (line === 1) lineStart = Math.max(lineStart, bom);
  const column = buf.toString("utf8", lineStart, bad).length + 1;
  const hex = (buf[bad] ?? 0).toString(16).toUpperCase().padStart(2, "0");
  return {
    ok: false,
    span: { line, column, endLine: line, endColumn: column + 1 },
    message: `the file is not valid UTF-8 (byte 0x${hex} at line ${line}, column ${column}); save it as UTF-8`,
  };
}

/** "UTF-16 LE (byte-order mark FF FE)" and the like, from a BOM or from the NUL bytes of ASCII text in UTF-16. */
function wideEncoding(buf: Buffer): string | undefined {
  const [a, b, c, d] = [buf[0], buf[1], buf[2], buf[3]];
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return "UTF-32 LE (it starts with the byte-order mark FF FE 00 00)";
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return "UTF-32 BE (it starts with the byte-order mark 00 00 FE FF)";
  if (a === 0xff && b === 0xfe) return "UTF-16 LE (it starts with the byte-order mark FF FE)";
  if (a === 0xfe && b === 0xff) return "UTF-16 BE (it starts with the byte-order mark FE FF)";
  // No mark: ASCII text in UTF-16 has a NUL in every other byte.
  const n = Math.min(buf.length, 512) & ~1;
  if (n < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (buf[i] === 0) evenNul++;
    if (buf[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul > pairs * 0.4 && evenNul < pairs * 0.05) return "UTF-16 LE (no byte-order mark, but a NUL byte after each character)";
  if (evenNul > pairs * 0.4 && oddNul < pairs * 0.05) return "UTF-16 BE (no byte-order mark, but a NUL byte before each character)";
  return undefined;
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
function firstInvalidUtf8(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min, cp] = [1, 0x80, b & 0x1f];
    else if (b >= 0xe0 && b <= 0xef) [need, min, cp] = [2, 0x800, b & 0x0f];
    else if (b >= 0xf0 && b <= 0xf4) [need, min, cp] = [3, 0x10000, b & 0x07];
    else return i;
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return buf.length;
}
