import { existsSync } from "node:fs";
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
