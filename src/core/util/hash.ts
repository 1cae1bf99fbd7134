import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

const SKIP = new Set(["runs", "node_modules", ".git", "__pycache__", ".pytest_cache"]);

/**
 * Content hash of an environment folder: every file's relative path and bytes, in
 * sorted order. Trajectories record it so a result can be tied to the exact environment.
 */
export function hashEnvironment(dir: string): string {
  const h = createHash("sha256");
  const walk = (rel: string) => {
    const names = readdirSync(path.join(dir, rel)).sort();
    for (const name of names) {
      if (SKIP.has(name)) continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, r), { throwIfNoEntry: false });
      if (!st) continue;
      // A link is hashed by what it names, never followed: one out of the folder (refused by the
      // loader) would otherwise pull host files in, one to a folder above would never end.
      if (st.isSymbolicLink()) h.update(`${r}\0link\0${readlinkSync(path.join(dir, r))}\0`);
      else if (st.isDirectory()) walk(r);
      else if (st.isFile()) {
        h.update(`${r}\0${st.size}\0`);
        h.update(readFileSync(path.join(dir, r)));
      }
    }
  };
  walk("");
  return h.digest("hex").slice(0, 16);
}
