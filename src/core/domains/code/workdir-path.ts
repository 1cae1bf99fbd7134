import path from "node:path";

export type WorkdirPath = { ok: true; rel: string } | { ok: false; message: string };

/**
 * Resolve a path an agent gave (relative to the workdir, or absolute inside it) to a
 * normalised path relative to the workdir. Anything that leaves the workdir is refused:
 * the sandbox isolates the host, and this keeps the agent's file tools to its own tree
 * so the diff and the verifier see every change.
 */
export function resolveInWorkdir(workdir: string, given: unknown, opts: { allowRoot?: boolean } = {}): WorkdirPath {
  if (typeof given !== "string" || given.trim() === "") return { ok: false, message: "path must be a non-empty string" };
  if (given.includes("\0")) return { ok: false, message: "path contains a NUL byte" };
  const root = path.posix.normalize(workdir.endsWith("/") && workdir.length > 1 ? workdir.slice(0, -1) : workdir);
  const abs = path.posix.resolve(root, given.trim());
  if (abs === root) return opts.allowRoot ? { ok: true, rel: "." } : { ok: false, message: `'${given}' is the workdir itself, not a file` };
  if (!abs.startsWith(`${root}/`))
    return { ok: false, message: `path '${given}' is outside the workdir ${root}: file tools only reach files under it` };
  return { ok: true, rel: abs.slice(root.length + 1) };
}
