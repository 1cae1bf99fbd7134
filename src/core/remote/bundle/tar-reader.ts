/**
 * Reads the tar a runner streams for a pull (tar-writer.ts, or tar-stream's pack on older
 * runners): ustar names with their prefix, pax `path`/`size` records, GNU long names, files
 * and folders; anything else is passed on as "other" and its body skipped. Each file comes
 * whole. Written by hand because tar-stream's extractor spent ~25–50 µs of CPU a file in
 * stream machinery, on the client's side of every followed pull.
 */

const BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(BLOCK);

export interface TarReadEntry {
  name: string;
  type: "file" | "directory" | "other";
  /** The file's bytes (empty for others). */
  body: Buffer;
}

export class TarFormatError extends Error {
  override name = "TarFormatError";
}

/** Push parser: feed it chunks as they arrive; it calls `onEntry` for each complete entry. */
export class TarReader {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** The header waiting for its body, or null while a header is due. */
  private header: { name: string; type: string; size: number } | null = null;
  /** What a pax or GNU long-name record says of the next entry. */
  private next: { path?: string; size?: number } = {};
  private ended = false;

  constructor(private readonly onEntry: (e: TarReadEntry) => void) {}

  push(chunk: Buffer): void {
    if (this.ended || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    for (;;) {
      if (!this.header) {
        if (this.bytes < BLOCK) return;
        const block = this.take(BLOCK);
        // A header's name never starts with NUL, so only the end marker gets the full compare.
        if (block[0] === 0 && block.equals(ZERO_BLOCK)) {
          this.ended = true; // the end marker: what follows (its second block, padding) does not matter
          return;
        }
        this.header = parseHeader(block);
        if (this.next.size !== undefined) this.header.size = this.next.size;
        continue;
      }
      const padded = Math.ceil(this.header.size / BLOCK) * BLOCK;
      if (this.bytes < padded) return;
      const body = this.take(padded).subarray(0, this.header.size);
      const h = this.header;
      this.header = null;
      this.entry(h, body);
    }
  }

  /** The stream ended: throws if it stopped inside an entry. */
  end(): void {
    if (this.header) throw new TarFormatError(`the tar ends inside ${this.header.name} (${this.bytes} of ${this.header.size} bytes)`);
    if (this.bytes > 0 && !this.ended) throw new TarFormatError(`the tar ends inside a header (${this.bytes} stray bytes)`);
  }

  private entry(h: { name: string; type: string; size: number }, body: Buffer): void {
    if (h.type === "x") {
      this.next = { ...this.next, ...parsePax(body) };
      return;
    }
    if (h.type === "L") {
      this.next = { ...this.next, path: body.toString("utf8").replace(/\0.*$/s, "") };
      return;
    }
    if (h.type === "g") return; // global pax defaults: nothing we use
    const name = this.next.path ?? h.name;
    this.next = {};
    const type = h.type === "0" || h.type === "\0" || h.type === "7" ? "file" : h.type === "5" ? "directory" : "other";
    this.onEntry({ name, type, body: type === "file" ? body : Buffer.alloc(0) });
  }

  /** The first `n` buffered bytes (n ≤ this.bytes), as one buffer. */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    let out: Buffer;
    if (first && first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const all = Buffer.concat(this.chunks, this.bytes);
      out = all.subarray(0, n);
      this.chunks = n < all.length ? [all.subarray(n)] : [];
    }
    this.bytes -= n;
    return out;
  }
}

function parseHeader(h: Buffer): { name: string; type: string; size: number } {
  // The checksum counts its own field as spaces.
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += h[i] ?? 0;
  for (let i = 156; i < BLOCK; i++) sum += h[i] ?? 0;
  if (octalAt(h, 148, 8) !== sum) throw new TarFormatError("not a tar archive (a header's checksum does not match)");
  const name = cstr(h, 0, 100);
  // "ustar" at 257: the prefix field holds the start of a long name.
  const ustar = h[257] === 0x75 && h[258] === 0x73 && h[259] === 0x74 && h[260] === 0x61 && h[261] === 0x72;
  const prefix = ustar && h[345] !== 0 ? cstr(h, 345, 155) : "";
  return { name: prefix ? `${prefix}/${name}` : name, type: String.fromCharCode(h[156] ?? 0), size: size(h) };
}

/** A NUL-terminated field, as UTF-8. */
function cstr(h: Buffer, at: number, width: number): string {
  let end = at;
  while (end < at + width && h[end] !== 0) end++;
  return h.toString("utf8", at, end);
}

/**
 * An octal number field (leading spaces or zeros, ended by NUL, space or the field's end),
 * read off the bytes; -1 when it holds no digits or something else.
 */
function octalAt(h: Buffer, at: number, width: number): number {
  let i = at;
  const end = at + width;
  while (i < end && h[i] === 0x20) i++;
  let n = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = h[i] ?? 0;
    if (c >= 0x30 && c <= 0x37) {
      n = n * 8 + (c - 0x30);
      digits++;
    } else if (c === 0 || c === 0x20) break;
    else return -1;
  }
  return digits > 0 ? n : -1;
}

/** The size field: octal text, or GNU's base-256 (high bit set) for sizes past 8 GiB. */
function size(h: Buffer): number {
  const first = h[124] ?? 0;
  if (first & 0x80) {
    let n = first & 0x7f;
    for (let i = 125; i < 136; i++) n = n * 256 + (h[i] ?? 0);
    return n;
  }
  if (first === 0) return 0;
  const n = octalAt(h, 124, 12);
  if (n < 0) throw new TarFormatError("a header's size is not a number");
  return n;
}

/** The pax records we use: "<length> key=value\n" each. */
function parsePax(body: Buffer): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(32, at);
    const len = Number.parseInt(body.toString("latin1", at, space), 10);
    if (space < 0 || !(len > 0) || at + len > body.length) throw new TarFormatError("a pax record is malformed");
    const record = body.toString("utf8", space + 1, at + len - 1); // without the trailing newline
    const eq = record.indexOf("=");
    const [key, value] = [record.slice(0, eq), record.slice(eq + 1)];
    if (key === "path") out.path = value;
    else if (key === "size") out.size = Number.parseInt(value, 10);
    at += len;
  }
  return out;
}
