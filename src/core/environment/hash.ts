import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
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
      const st = statSync(path.join(dir, r), { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) {
        h.update(`${r}\0${st.size}\0`);
        h.update(readFileSync(path.join(dir, r)));
      }
    }
  };
  walk("");
  return h.digest("hex").slice(0, 16);
}
