import path from "node:path";
import type { Sandbox } from "../../core/model/sandbox";

/** One entry of a sandbox folder, as `find -printf` reports it. */
export interface SandboxEntry {
  /** Relative to the workdir, POSIX separators; "" is the workdir itself. */
  path: string;
  kind: "file" | "dir" | "link" | "other";
  size: number;
  mtimeMs: number;
}

const KINDS: Record<string, SandboxEntry["kind"]> = { f: "file", d: "dir", l: "link" };

/** Rejects paths that would leave the workdir: the view shows the workdir only. */
export function checkRelative(rel: string): string {
  const norm = path.posix.normalize(rel.replace(/^\/+/, "") || ".");
  if (norm === ".." || norm.startsWith("../")) throw new Error(`${rel}: outside the sandbox workdir`);
  return norm === "." ? "" : norm;
}

/**
 * Lists a folder of the workdir (or stats one path with `self`) by running GNU find in the
 * sandbox, so what the agent's commands see is what is shown. NUL-separated: names may hold newlines.
 */
export async function listSandbox(sb: Sandbox, rel: string, opts: { self?: boolean; signal?: AbortSignal } = {}): Promise<SandboxEntry[]> {
  const dir = checkRelative(rel);
  const depth = opts.self ? ["-maxdepth", "0"] : ["-mindepth", "1", "-maxdepth", "1"];
  const r = await sb.exec(["find", dir === "" ? "." : dir, ...depth, "-printf", "%y\\t%s\\t%T@\\t%p\\0"], {
    timeoutMs: 15_000,
    maxOutputBytes: 8 << 20,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (r.status !== "ok") throw new Error(`listing ${dir || "the workdir"} in the sandbox: ${r.reason ?? r.status}`);
  if (r.exitCode !== 0) {
    if (/No such file or directory/.test(r.stderr)) return [];
    throw new Error(`listing ${dir || "the workdir"} in the sandbox: ${r.stderr.trim() || `find exited with ${r.exitCode}`}`);
  }
  const out: SandboxEntry[] = [];
  for (const rec of r.stdout.split("\0")) {
    if (!rec) continue;
    const [y, size, mtime, ...rest] = rec.split("\t");
    const p = checkRelative(rest.join("\t"));
    out.push({ path: p, kind: KINDS[y ?? ""] ?? "other", size: Number(size), mtimeMs: Math.round(Number(mtime) * 1000) });
  }
  return out.sort((a, b) => ((a.kind === "dir") !== (b.kind === "dir") ? (a.kind === "dir" ? -1 : 1) : a.path.localeCompare(b.path)));
}
