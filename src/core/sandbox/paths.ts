import path from "node:path";

/**
 * Resolves a path given to writeFiles/readFiles/exec cwd to an absolute path inside the
 * sandbox: relative paths are taken from the workdir; an absolute path must lie under the
 * workdir or /tmp. Throws a plain error naming the path otherwise (no escape with "..").
 */
export function resolveSandboxPath(workdir: string, p: string, roots: string[] = [workdir, "/tmp"]): string {
  const abs = path.posix.resolve(workdir, p);
  if (!roots.some((r) => abs === r || abs.startsWith(`${r}/`))) {
    throw new Error(`path "${p}" is outside the sandbox workdir ${workdir}`);
  }
  return abs;
}

/** The workdir-relative form of an absolute path inside the workdir. */
export function relativeToWorkdir(workdir: string, abs: string): string {
  return path.posix.relative(workdir, abs);
}
