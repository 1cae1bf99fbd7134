import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * Resolve a path given in an environment against its folder, refusing anything that
 * leaves it: absolute paths, `..` segments that climb out, and symlinks pointing out.
 * Returns the absolute path, or a message saying why it was refused.
 */
export function resolveInside(root: string, rel: string): { ok: true; path: string } | { ok: false; message: string } {
  if (path.isAbsolute(rel) || /^[a-zA-Z]:[\\/]/.test(rel)) return { ok: false, message: `absolute path '${rel}' is not allowed: paths are relative to the environment folder` };
  const abs = path.resolve(root, rel);
  const within = (p: string, r: string) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
  if (!within(abs, path.resolve(root))) return { ok: false, message: `path '${rel}' leaves the environment folder` };
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return { ok: true, path: abs };
  }
  if (!within(real, realpathSync(root))) return { ok: false, message: `path '${rel}' is a link that points outside the environment folder (to ${real})` };
  return { ok: true, path: abs };
}

/** A path inside the sandbox workdir, as used for seed files and tool arguments. */
export function isSafeRelativePath(rel: string): boolean {
  if (rel === "" || rel.includes("\0") || path.posix.isAbsolute(rel) || rel.includes("\\")) return false;
  const norm = path.posix.normalize(rel);
  return norm !== ".." && !norm.startsWith("../");
}
