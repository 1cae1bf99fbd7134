import { closeSync, existsSync, openSync, readSync } from "node:fs";
import path from "node:path";

/**
 * The folder holding the built app bundles (dist/webviews). From the bundled CLI or
 * extension it sits beside the bundle; from sources (tsx, tests) it is found by walking
 * up to the package root.
 */
export function findAssetsDir(start = __dirname): string {
  const beside = path.join(start, "webviews");
  if (existsSync(path.join(beside, "trajectory.js"))) return beside;
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "dist", "webviews");
    if (existsSync(path.join(dir, "package.json")) && existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error("the viewer's bundles (dist/webviews) are missing: run `npm run build` first");
}

export const ASSET_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ttf": "font/ttf",
  ".map": "application/json",
};

/** A built module's first 64 KB (its import statements come first), or null if it cannot be read. */
function head(file: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buf = Buffer.alloc(64 * 1024);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString("utf8");
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** One import statement at the head of a built module: `import{a as b}from"./chunk-X.js";` or `import"./chunk-X.js";`. */
const HEAD_IMPORT = /^\s*import\s*(?:[^"';]*?from\s*)?["'](\.\/[\w.-]+\.js)["'];?/;

/**
 * The chunks an app's bundle imports statically, directly or through each other, in the
 * order they are first met: read from the import statements esbuild puts at the head of each
 * module. The page names them as module preloads, so the browser fetches them with the
 * bundle instead of one round of requests per level of imports. Lazy parts (`import()`) are
 * not at the head and are left out. A file that cannot be read ends the walk there.
 */
export function staticImports(assetsDir: string, entry: string): string[] {
  const seen = new Set<string>([entry]);
  const out: string[] = [];
  const walk = (name: string) => {
    let text = head(path.join(assetsDir, name));
    if (text === null) return;
    for (let m = HEAD_IMPORT.exec(text); m; m = HEAD_IMPORT.exec(text)) {
      const dep = path.posix.basename(m[1] ?? "");
      text = text.slice(m[0].length);
      if (seen.has(dep)) continue;
      seen.add(dep);
      out.push(dep);
      walk(dep);
    }
  };
  walk(entry);
  return out;
}
