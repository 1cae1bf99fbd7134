/**
 * The few tar records a runner sends when it streams a run folder: plain files and folders,
 * as POSIX ustar headers, with a pax record in front where a name does not fit. Written by
 * hand because the general packer (tar-stream on streamx) spent ~50 µs of CPU per file on
 * its stream machinery, and a followed pull sends every trajectory of a run: a thousand
 * rollouts cost the runner ~50 ms, competing with the run itself on a small host.
 */

const BLOCK = 512;
/** The largest size the 11 octal digits of a ustar header hold (8 GiB - 1); bigger goes in a pax record. */
const MAX_OCTAL_SIZE = 0o77777777777;
const ZEROS = Buffer.alloc(BLOCK);

/** Two zero blocks: the end of the archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

/** The zero bytes that pad an entry's body of `size` bytes to a whole block. */
export function tarPadding(size: number): Buffer {
  const rest = size % BLOCK;
  return rest === 0 ? ZEROS.subarray(0, 0) : ZEROS.subarray(0, BLOCK - rest);
}

export interface TarEntry {
  name: string;
  type: "file" | "directory";
  /** Bytes of the body that follows (0 for a folder). */
  size: number;
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

/**
 * The header block(s) of one entry: a ustar header, preceded by a pax header and its record
 * when the name (or the size) does not fit the ustar fields. The body follows, then
 * tarPadding(size).
 */
export function tarHeader(e: TarEntry): Buffer {
  const name = e.type === "directory" && !e.name.endsWith("/") ? `${e.name}/` : e.name;
  const split = splitName(name);
  const pax: Array<[string, string]> = [];
  if (!split) pax.push(["path", name]);
  if (e.size > MAX_OCTAL_SIZE) pax.push(["size", String(e.size)]);
  const fitted = split ?? { prefix: "", name: asciiTail(name, 100) };
  const main = ustar(fitted.name, fitted.prefix, e.type === "directory" ? "5" : "0", e.size > MAX_OCTAL_SIZE ? 0 : e.size, e.mode, e.mtime);
  if (pax.length === 0) return main;
  const records = Buffer.from(pax.map(([k, v]) => paxRecord(k, v)).join(""), "utf8");
  const paxHead = ustar(asciiTail(`PaxHeader/${fitted.name}`, 100), "", "x", records.length, 0o644, e.mtime);
  return Buffer.concat([paxHead, records, tarPadding(records.length), main]);
}

/** The name as ustar's name (≤ 100 bytes) and prefix (≤ 155 bytes), split at a slash; null when it cannot be. */
function splitName(name: string): { prefix: string; name: string } | null {
  const bytes = Buffer.byteLength(name);
  if (bytes <= 100) return { prefix: "", name };
  if (bytes > 256) return null;
  // The latest slash that leaves a prefix short enough, for the longest prefix and shortest name.
  for (let i = name.lastIndexOf("/", name.length - 2); i > 0; i = name.lastIndexOf("/", i - 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(rest) > 100) return null;
    if (Buffer.byteLength(prefix) <= 155) return { prefix, name: rest };
  }
  return null;
}

/** Whatever fits of the end of a name, for the ustar field a pax record overrides. */
function asciiTail(name: string, max: number): string {
  const b = Buffer.from(name, "utf8");
  return b.length <= max ? name : b.subarray(b.length - max).toString("latin1").replace(/[^\x20-\x7e]/g, "_");
}

/** One pax record: "<length> key=value\n", the length counting its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = Buffer.byteLength(body);
  const digits = String(bodyBytes).length;
  let len = bodyBytes + digits;
  if (String(len).length > digits) len += 1; // the count itself grew a digit
  return `${len}${body}`;
}

function ustar(name: string, prefix: string, type: "0" | "5" | "x", size: number, mode: number, mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, "utf8");
  octal(h, 100, 8, mode & 0o7777);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, Math.floor(mtime));
  h.write("        ", 148, 8, "latin1"); // the checksum counts its own field as spaces
  h.write(type, 156, 1, "latin1");
  h.write("ustar\u000000", 257, 8, "latin1");
  h.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += h[i] ?? 0;
  h.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, 8, "latin1");
  return h;
}

/** A zero-padded octal number in a field of `width` bytes, ending in NUL. */
function octal(h: Buffer, at: number, width: number, n: number): void {
  h.write(`${n.toString(8).padStart(width - 1, "0")}\u0000`, at, width, "latin1");
}
