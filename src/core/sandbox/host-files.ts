import { constants, existsSync } from "node:fs";
import { lchown, lstat, mkdir, open, readdir, readlink, realpath, rm, unlink } from "node:fs/promises";
import path from "node:path";
import { toBuffer } from "./diff";
import { READ_BYTES, TreeBudget, unreadFile } from "./read-bounds";

/**
 * Every regular file under `dir`, keyed by its path relative to `dir` (forward slashes), within
 * `budget` (see read-bounds.ts): past its file bound the walk stops, and a file past its byte
 * bounds reads as a stand-in naming its size.
 */
export async function readTree(dir: string, budget = new TreeBudget()): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const root = await realpath(dir).catch(() => dir);
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (budget.skipped > 0) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) {
        if (!budget.takeFile()) return;
        // Read as readInside reads: the sandbox may swap the file for a link or a FIFO since the listing.
        const b = await readRegular(root, path.join(dir, r), (size) => budget.refuse(size));
        if (b) out.set(r, b);
      }
    }
  }
  await walk("");
  return out;
}

/** Who must own what the host writes: the sandbox user, when commands run as that user on the host's files. */
export interface FileOwner {
  uid: number;
  gid: number;
}

/**
 * Makes every folder on the way to `rel` a real folder under `dir`. Sandboxed code can
 * plant symlinks in its workdir; following one from the host would let it read or
 * overwrite host files, so a link on the way is removed and replaced by a folder.
 * A folder made here is given to `owner`, so the sandbox user can create files in it.
 */
async function realParents(dir: string, rel: string, owner?: FileOwner): Promise<void> {
  const parts = rel.split("/").slice(0, -1);
  let cur = dir;
  for (const part of parts) {
    cur = path.join(cur, part);
    const st = await lstat(cur).catch(() => null);
    // lstat: a link is never a directory here, so it is removed and replaced.
    if (st && !st.isDirectory()) await unlink(cur);
    if (!st?.isDirectory()) {
      await mkdir(cur);
      // lchown: never through a link swapped in after the mkdir.
      if (owner) await lchown(cur, owner.uid, owner.gid);
    }
  }
}

/**
 * Writes files under `dir` (keys already checked to stay inside), never through a link, byte
 * for byte (a Buffer is written as is; a string as UTF-8). With `owner`, every file and
 * folder written is handed to that user: a sandbox whose commands run as another user on
 * these very files (unshare) could otherwise not overwrite its own seed files.
 */
export async function writeTree(dir: string, files: Record<string, string | Buffer>, mode?: number, owner?: FileOwner): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const norm = rel.split(path.sep).join("/");
    await realParents(dir, norm, owner);
    const abs = path.join(dir, norm);
    const st = await lstat(abs).catch(() => null);
    if (st && !st.isFile()) await rm(abs, { recursive: true, force: true });
    // O_NOFOLLOW: if a link appears between the check and the open, the open fails.
    // O_NONBLOCK: a FIFO planted since the check fails the open (ENXIO) instead of hanging it.
    const fh = await open(
      abs,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      mode ?? 0o644,
    );
    try {
      if (owner) await fh.chown(owner.uid, owner.gid);
      // An explicit mode holds for a file that existed too (open applies it only when it creates).
      if (mode !== undefined) await fh.chmod(mode);
      await fh.writeFile(toBuffer(content));
    } finally {
      await fh.close();
    }
  }
}

/** Reads a file under `dir` without following links the sandbox may have planted; null when absent or a link. */
export async function readInside(dir: string, abs: string): Promise<Buffer | null> {
  const rel = path.relative(dir, abs);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
  let cur = dir;
  for (const part of rel.split(path.sep).slice(0, -1)) {
    cur = path.join(cur, part);
    const st = await lstat(cur).catch(() => null);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) return null;
  }
  return readRegular(await realpath(dir).catch(() => dir), abs);
}

/** One file read alone (readFiles): up to READ_BYTES; a larger one reads as a stand-in naming its size. */
function readBound(size: number): string | null {
  return size > READ_BYTES ? `larger than the host's ${READ_BYTES}-byte bound on one read` : null;
}

/** Whether /proc/self/fd names an open file's path here (Linux): what checks where a file really is. */
const PROC_FD = existsSync("/proc/self/fd");

/**
 * A regular file's bytes, or null. O_NOFOLLOW: a link in its place is not followed. O_NONBLOCK:
 * a FIFO in its place opens at once (and is refused) instead of waiting for a writer forever.
 * Where it was opened is checked against `root` (a real path): a folder on the way that the
 * sandbox swapped for a link after it was looked at cannot carry the read out of the sandbox.
 */
async function readRegular(root: string, abs: string, refuse: (size: number) => string | null = readBound): Promise<Buffer | null> {
  const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    if (PROC_FD) {
      const where = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => null);
      if (where === null || !where.startsWith(root + path.sep)) return null;
    }
    const why = refuse(st.size);
    if (why) return unreadFile(st.size, why);
    // Read no more than was sized: a file still growing under the read cannot take more.
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Removes everything inside `dir`, keeping `dir` itself. */
export async function emptyDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(entries.map((e) => rm(path.join(dir, e), { recursive: true, force: true })));
}
