/**
 * The few tar records a runner sends when it streams a run folder: plain files and folders,
 * as POSIX ustar headers, with a pax record in front where a name does not fit. Written by
 * hand because the general packer (tar-stream on streamx) spent ~50 µs of CPU per file on
 * its stream machinery, and a followed pull sends every trajectory of a run: a thousand
 * rollouts cost the runner ~50 ms, competing with the run itself on a small host.
 */

export const BLOCK = 512;
/** The largest size the 11 octal digits of a ustar header hold (8 GiB - 1); bigger goes in a pax record. */
export const MAX_OCTAL_SIZE = 0o77777777777;
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

/** The name as ustar's name (≤ 100 bytes) and prefix (≤ 155 bytes), split at a slash; null when it cannot be (a pax record must carry it). */
export function splitName(name: string): { prefix: string; name: string } | null {
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
  return b.length <= max
    ? name
    : b
        .subarray(b.length - max)
        .toString("latin1")
        .replace(/[^\x20-\x7e]/g, "_");
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
  const h = Buffer.allocUnsafe(BLOCK);
  writeUstar(h, 0, name, prefix, type, size, mode, mtime);
  return h;
}

/**
 * A ustar header block written in place at `at` (its 512 bytes are overwritten), so a
 * packer can put header and body side by side in one chunk. `name` and `prefix` must fit
 * (see splitName) and `size` the octal field. The fields every entry of a stream shares
 * come from a cached template block, with its byte sum: per entry only the name, size and
 * checksum are written (a pull writes a thousand headers in a burst).
 */
export function writeUstar(
  h: Buffer,
  at: number,
  name: string,
  prefix: string,
  type: "0" | "5" | "x",
  size: number,
  mode: number,
  mtime: number,
): void {
  const t = template(type, mode, mtime);
  t.block.copy(h, at);
  let sum = t.sum;
  const nameBytes = h.write(name, at, 100, "utf8");
  for (let i = at; i < at + nameBytes; i++) sum += h[i] ?? 0;
  if (prefix) {
    const prefixBytes = h.write(prefix, at + 345, 155, "utf8");
    for (let i = at + 345; i < at + 345 + prefixBytes; i++) sum += h[i] ?? 0;
  }
  // The template's size field is all "0" digits: each digit written adds its excess over "0".
  for (let i = at + 134, n = size; n > 0 && i >= at + 124; i--, n = Math.floor(n / 8)) {
    const digit = n % 8;
    h[i] = 0x30 + digit;
    sum += digit;
  }
  // Six octal digits, NUL, space.
  for (let i = at + 153; i >= at + 148; i--, sum = Math.floor(sum / 8)) h[i] = 0x30 + (sum % 8);
  h[at + 154] = 0;
  h[at + 155] = 0x20;
}

/** The last few header templates (a stream uses one mode and mtime per entry type). */
const templates: Array<{ type: string; mode: number; mtime: number; block: Buffer; sum: number }> = [];

function template(type: "0" | "5" | "x", mode: number, mtime: number): { block: Buffer; sum: number } {
  for (const t of templates) if (t.type === type && t.mode === mode && t.mtime === mtime) return t;
  const block = Buffer.alloc(BLOCK);
  octal(block, 100, 8, mode & 0o7777);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, 0);
  octal(block, 136, 12, Math.floor(mtime));
  block.write("        ", 148, 8, "latin1"); // the checksum counts its own field as spaces
  block[156] = type.charCodeAt(0);
  block.write("ustar\u000000", 257, 8, "latin1");
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += block[i] ?? 0;
  const made = { type, mode, mtime, block, sum };
  templates.unshift(made);
  if (templates.length > 6) templates.pop();
  return made;
}

/** A zero-padded octal number in a field of `width` bytes, ending in NUL. */
function octal(h: Buffer, at: number, width: number, n: number): void {
  h.write(`${n.toString(8).padStart(width - 1, "0")}\u0000`, at, width, "latin1");
}
