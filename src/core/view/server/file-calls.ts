import { close, fstat, mkdir, open, read, rename, type Stats, writeFile } from "node:fs";

/**
 * The few asynchronous file calls the view server makes, on node:fs's callbacks. `node:fs/promises`
 * is not in Node's start-up snapshot: requiring it compiles a dozen internal modules (its file
 * handles, streams, readline), 3-7 ms of CPU each time `rlenv view` loaded its API half, on the
 * way to the first painted step. These wrap the same calls, each one promise, no more.
 */
function call<T>(run: (done: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value))));
}

/** A file opened for reading: its size, positioned reads, close. */
export class ReadFile {
  private constructor(private readonly fd: number) {}

  static async open(file: string): Promise<ReadFile> {
    return new ReadFile(await call<number>((done) => open(file, "r", done)));
  }

  async size(): Promise<number> {
    return (await call<Stats>((done) => fstat(this.fd, done))).size;
  }

  /** Reads into `buf` from `position`; resolves with the bytes read (fewer at the end of the file). */
  read(buf: Buffer, position: number): Promise<number> {
    return call<number>((done) => read(this.fd, buf, 0, buf.length, position, (err, n) => done(err, n)));
  }

  close(): Promise<void> {
    return call<void>((done) => close(this.fd, (err) => done(err ?? null, undefined)));
  }
}

export const mkdirs = (dir: string): Promise<void> =>
  call<void>((done) => mkdir(dir, { recursive: true }, (err) => done(err ?? null, undefined)));
export const writeText = (file: string, text: string): Promise<void> =>
  call<void>((done) => writeFile(file, text, (err) => done(err ?? null, undefined)));
export const renameFile = (from: string, to: string): Promise<void> =>
  call<void>((done) => rename(from, to, (err) => done(err ?? null, undefined)));
