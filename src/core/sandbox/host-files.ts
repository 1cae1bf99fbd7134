import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { toBuffer } from "./diff";

/** Every regular file under `dir`, keyed by its path relative to `dir` (forward slashes). */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.set(r, await readFile(path.join(dir, r)));
    }
  }
  await walk("");
  return out;
}

/** Writes files under `dir` (keys already checked to stay inside), creating parent folders. */
export async function writeTree(dir: string, files: Record<string, string | Buffer>, mode?: number): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, toBuffer(content), mode === undefined ? undefined : { mode });
  }
}

/** Removes everything inside `dir`, keeping `dir` itself. */
export async function emptyDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(entries.map((e) => rm(path.join(dir, e), { recursive: true, force: true })));
}
