import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { contentOfBytes } from "../model/file-content";
import type { FileMap } from "../schema/common";
import type { TreeFile } from "../model/harbor";

const SKIP = new Set([".git", "__pycache__", ".pytest_cache", "node_modules"]);

/**
 * Every regular file under `dir`, keyed by its `/`-separated relative path, sorted. A link is
 * followed only when it stays inside `root` (the task folder); one that leads out throws,
 * naming it, so no host file reaches an image or a sandbox through a link. A link to a folder
 * already being read (itself, one above) is not walked again, so a loop of folder links ends;
 * a FIFO, a socket, a device or a loop of file links throws, naming it, since a task read
 * without it would run without a word said.
 */
export function readTree(dir: string, root = dir): Map<string, TreeFile> {
  const out = new Map<string, TreeFile>();
  const realRoot = realpathSync(root);
  const open = new Set<string>(); // the real folders being read, this one and those above
  const walk = (rel: string) => {
    const here = realpathSync(path.join(dir, rel));
    if (open.has(here)) return;
    open.add(here);
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (SKIP.has(name)) continue;
      const r = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, r);
      let st = lstatSync(abs);
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(abs);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new Error(`${abs}: a loop of symbolic links`);
          continue;
        }
        if (real !== realRoot && !real.startsWith(realRoot + path.sep))
          throw new Error(`${abs}: links outside the task folder (to ${real})`);
        st = lstatSync(real);
      }
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) out.set(r, { bytes: readFileSync(abs), executable: (st.mode & 0o111) !== 0 });
      else
        throw new Error(
          `${abs}: ${st.isFIFO() ? "a FIFO" : st.isSocket() ? "a socket" : "a device or special file"}, not a file or a folder`,
        );
    }
    open.delete(here);
  };
  walk("");
  return out;
}

/** Files read by readTree as a task's file map (text or base64, executable ones marked so). */
export function fileMapOf(files: Map<string, TreeFile>): FileMap {
  const out: FileMap = {};
  for (const [p, f] of files) out[p] = contentOfBytes(f.bytes, f.executable);
  return out;
}
