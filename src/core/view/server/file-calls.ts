import { close, fstat, mkdir, open, read, rename, writeFile } from "node:fs";
import { promisify } from "node:util";

/**
 * The few asynchronous file calls the view server makes, on node:fs's callbacks. `node:fs/promises`
 * is not in Node's start-up snapshot: requiring it compiles a dozen internal modules (its file
 * handles, streams, readline), 3-7 ms of CPU each time `rlenv view` loaded its API half, on the
 * way to the first painted step. `node:util` is loaded before any user code runs, so its
 * `promisify` wraps the same callback calls at no start-up cost.
 */
const openP = promisify(open);
const fstatP = promisify(fstat);
const readP = promisify(read);
const closeP = promisify(close);
const mkdirP = promisify(mkdir);
const writeFileP = promisify(writeFile);
const renameP = promisify(rename);

/** A file opened for reading: its size, positioned reads, close. */
export class ReadFile {
  private constructor(private readonly fd: number) {}

  static async open(file: string): Promise<ReadFile> {
    return new ReadFile(await openP(file, "r"));
  }

  async size(): Promise<number> {
    return (await fstatP(this.fd)).size;
  }

  /** Reads into `buf` from `position`; resolves with the bytes read (fewer at the end of the file). */
  async read(buf: Buffer, position: number): Promise<number> {
    return (await readP(this.fd, buf, 0, buf.length, position)).bytesRead;
  }

  close(): Promise<void> {
    return closeP(this.fd);
  }
}

export const mkdirs = async (dir: string): Promise<void> => {
  await mkdirP(dir, { recursive: true });
};
export const writeText = (file: string, text: string): Promise<void> => writeFileP(file, text);
export const renameFile = (from: string, to: string): Promise<void> => renameP(from, to);
