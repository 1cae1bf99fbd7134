import { mkdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * `mkdir -p` that fails instead of hanging: Node's recursive mkdirSync never returns for a
 * path under a pseudo file system that refuses new entries (`/proc/x`), so a mistyped
 * `--runs` froze the command. This walks up to the nearest folder that exists and makes
 * each missing level itself, so the first refusal surfaces as an error naming the path.
 */
export function makeDirs(dir: string): void {
  const abs = path.resolve(dir);
  const missing: string[] = [];
  let at = abs;
  for (;;) {
    const st = statOrNothing(at);
    if (st) {
      if (!st.isDirectory()) throw new Error(`cannot make folder ${abs}: ${at} is not a folder`);
      break;
    }
    missing.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === "EEXIST" && statSync(d, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw new Error(`cannot make folder ${abs}: ${err.message}`);
    }
  }
}

/** A path's stat, or undefined where nothing is (ENOENT) or where a file stands on the way (ENOTDIR). */
function statOrNothing(p: string) {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw e;
  }
}
