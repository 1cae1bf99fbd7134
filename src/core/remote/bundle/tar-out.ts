import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { PassThrough } from "node:stream";
import { BLOCK, splitName, TAR_END, tarHeader, tarPadding, writeUstar } from "./tar-writer";

/** Memory a chunk is packed in; what is left of it after a write keeps being filled. */
const CHUNK_BYTES = 256 * 1024;
/** Room below which a fresh chunk is taken rather than the rest of the current one. */
const MIN_ROOM = 16 * 1024;

/**
 * The tar a pull streams, packed as it is made: each file's header, its bytes (read from
 * disk straight into place) and padding side by side in one chunk, and what one turn of
 * the event loop adds leaves as one write. Per file that is open, read and close, with no
 * buffer of its own: a followed pull sends every trajectory of a run, and the runner
 * shares its host's CPU with the run.
 */
export class TarOut {
  readonly stream = new PassThrough();
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Bytes packed in `buf` and not yet written. */
  private len = 0;
  private scheduled = false;

  /**
   * Appends the file at `file`, as it is now, as the entry `name`; returns its size, or
   * undefined when it cannot be read (gone since it was listed). A file read at `unlessSize`
   * bytes is left out (already sent as it is).
   */
  file(name: string, file: string, mtime: number, unlessSize?: number): number | undefined {
    if (this.stream.destroyed) return undefined;
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      return undefined;
    }
    try {
      const split = splitName(name);
      this.room(2 * BLOCK + MIN_ROOM);
      // Header and padding are reserved around the body; a file that fills the rest may be bigger.
      const room = this.buf.length - this.len - 2 * BLOCK;
      const n = split ? readSync(fd, this.buf, this.len + BLOCK, room, 0) : room;
      if (split && n < room) {
        if (n === unlessSize) return n;
        writeUstar(this.buf, this.len, split.name, split.prefix, "0", n, 0o644, mtime);
        const end = this.len + BLOCK + n;
        const pad = tarPadding(n).length;
        this.buf.fill(0, end, end + pad);
        this.len = end + pad;
        this.schedule();
        return n;
      }
      // Too big for the chunk, or a name that needs a pax record: read whole, on its own.
      const body = readWhole(fd);
      if (body.length !== unlessSize) this.buffer(name, body, mtime);
      return body.length;
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** Appends an entry whose bytes are already in memory. */
  buffer(name: string, body: Buffer, mtime: number): void {
    if (this.stream.destroyed) return;
    const header = tarHeader({ name, type: "file", size: body.length, mode: 0o644, mtime });
    const pad = tarPadding(body.length);
    if (header.length + body.length + pad.length <= this.buf.length - this.len) {
      this.len += header.copy(this.buf, this.len);
      this.len += body.copy(this.buf, this.len);
      this.len += pad.copy(this.buf, this.len);
      this.schedule();
      return;
    }
    this.flush();
    this.stream.write(header);
    if (body.length > 0) this.stream.write(body);
    if (pad.length > 0) this.stream.write(pad);
  }

  directory(name: string, mtime: number): void {
    if (this.stream.destroyed) return;
    const dirName = name.endsWith("/") ? name : `${name}/`;
    const split = splitName(dirName);
    if (!split) {
      this.flush();
      this.stream.write(tarHeader({ name, type: "directory", size: 0, mode: 0o755, mtime }));
      return;
    }
    this.room(BLOCK);
    writeUstar(this.buf, this.len, split.name, split.prefix, "5", 0, 0o755, mtime);
    this.len += BLOCK;
    this.schedule();
  }

  /** Bytes packed or written that the reader has not taken yet. */
  backlog(): number {
    return this.stream.writableLength + this.len;
  }

  end(): void {
    if (this.stream.destroyed) return;
    this.flush();
    this.stream.end(TAR_END);
  }

  /** At least `bytes` free in the chunk: what is packed leaves first, and a fresh chunk is taken if the rest is short. */
  private room(bytes: number): void {
    if (this.buf.length - this.len >= bytes) return;
    this.flush();
    if (this.buf.length < bytes) this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes what is packed; the written bytes belong to the stream from now on, the rest of the chunk is filled on. */
  private flush(): void {
    if (this.len === 0 || this.stream.destroyed) return;
    this.stream.write(this.buf.subarray(0, this.len));
    this.buf = this.buf.length - this.len >= MIN_ROOM ? this.buf.subarray(this.len) : Buffer.allocUnsafe(CHUNK_BYTES);
    this.len = 0;
  }
}

/** A file's bytes as they are now, from an open descriptor. */
function readWhole(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const out = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, out, got, size - got, got);
    if (n === 0) break; // shrank since the stat: send what is there
    got += n;
  }
  return out.subarray(0, got);
}
