import { lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

const within = (p: string, r: string) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep);

/**
 * Resolve a path given in an environment against its folder, refusing anything that
 * leaves it: absolute paths, `..` segments that climb out, and symlinks pointing out.
 * Returns the absolute path, or a message saying why it was refused.
 */
export function resolveInside(root: string, rel: string): { ok: true; path: string } | { ok: false; message: string } {
  if (path.isAbsolute(rel) || /^[a-zA-Z]:[\\/]/.test(rel))
    return { ok: false, message: `absolute path '${rel}' is not allowed: paths are relative to the environment folder` };
  const abs = path.resolve(root, rel);
  if (!within(abs, path.resolve(root))) return { ok: false, message: `path '${rel}' leaves the environment folder` };
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return { ok: true, path: abs };
  }
  if (!within(real, realpathSync(root))) return { ok: false, message: `path '${rel}' links outside the environment (to ${real})` };
  return { ok: true, path: abs };
}

/**
 * Where the link at `abs` leads when that is outside `realRoot` (an already resolved folder):
 * its resolved target, or for a dangling link the place it names; null when it stays inside.
 */
export function linkLeadsOut(abs: string, realRoot: string): string | null {
  let target: string;
  try {
    target = realpathSync(abs);
  } catch {
    // Dangling (or a loop): judged by what it names, so a link to a host path that does not exist yet is refused too.
    let named: string;
    try {
      named = readlinkSync(abs);
    } catch {
      return null;
    }
    target = path.resolve(path.dirname(abs), named);
  }
  return within(target, realRoot) ? null : target;
}

/** Folders never part of an environment's content (a run, a tool's cache, version control). */
const NOT_CONTENT = new Set(["runs", "node_modules", ".git", "__pycache__", ".pytest_cache"]);

/** A symbolic link under an environment folder that leads out of it. */
export interface OutsideLink {
  /** Absolute path of the link itself. */
  file: string;
  /** Relative to the environment folder, with '/'. */
  rel: string;
  /** Where it leads. */
  target: string;
}

/**
 * Every link under `root` that leads outside it, found without following any link (a link
 * to a folder inside is not walked through: its target is walked where it really is).
 * Tasks, seed files, tests, solutions, assets, documents and a build context all live under
 * the environment folder, so one walk covers them all.
 */
export function findOutsideLinks(root: string): OutsideLink[] {
  const out: OutsideLink[] = [];
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return out;
  }
  const walk = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(root, rel)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (NOT_CONTENT.has(name)) continue;
      const r = rel ? `${rel}/${name}` : name;
      const abs = path.join(root, r);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(abs);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) {
        const target = linkLeadsOut(abs, realRoot);
        if (target !== null) out.push({ file: abs, rel: r, target });
      } else if (st.isDirectory()) walk(r);
    }
  };
  walk("");
  return out;
}

/** A path inside the sandbox workdir, as used for seed files and tool arguments. */
export function isSafeRelativePath(rel: string): boolean {
  if (rel === "" || rel.includes("\0") || path.posix.isAbsolute(rel) || rel.includes("\\")) return false;
  const norm = path.posix.normalize(rel);
  return norm !== ".." && !norm.startsWith("../");
}
