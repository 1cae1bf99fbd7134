import type { Sandbox } from "../../sandbox/types";

/**
 * File reads and writes for the code tools and the tests verifier, done by a command
 * inside the sandbox rather than through Sandbox.readFiles/writeFiles. The agent can
 * create symbolic links; resolved inside the sandbox, a link can only reach what the
 * sandbox sees, and the path is checked to stay in the workdir after resolution. (A
 * backend that copies files on the host side could otherwise follow an agent's link to
 * a host file.)
 */
const RESOLVE = `w=$(realpath -e -- "$2") || { echo "the workdir is missing" >&2; exit 5; }
case "$f" in "$w"/*) ;; *) echo "'$1' resolves to $f, outside the workdir" >&2; exit 3;; esac`;

const READ = `f=$(realpath -e -- "$1" 2>/dev/null) || { echo "no file '$1' in the workdir" >&2; exit 2; }
${RESOLVE}
[ -f "$f" ] || { echo "'$1' is not a regular file" >&2; exit 4; }
exec cat -- "$f"`;

const WRITE = `[ "$3" = replace ] && [ -L "$2/$1" ] && rm -f -- "$2/$1"
f=$(realpath -m -- "$1") || exit 2
${RESOLVE}
[ -d "$f" ] && { echo "'$1' is a folder" >&2; exit 4; }
mkdir -p -- "$(dirname -- "$f")" && cat > "$f"`;

export type FileRead = { ok: true; text: string; truncated: boolean } | { ok: false; missing: boolean; message: string };

const opts = (timeoutMs: number, signal?: AbortSignal) => ({ timeoutMs, ...(signal ? { signal } : {}) });

export async function readWorkdirFile(sb: Sandbox, rel: string, timeoutMs: number, signal?: AbortSignal): Promise<FileRead> {
  const r = await sb.exec(["bash", "-c", READ, "read", rel, sb.workdir], opts(timeoutMs, signal));
  if (r.status === "ok" && r.exitCode === 0) return { ok: true, text: r.stdout, truncated: r.truncated !== undefined };
  const message = r.status === "ok" ? r.stderr.trim() || `reading '${rel}' failed (exit ${r.exitCode})` : `reading '${rel}' failed: ${r.reason ?? r.status}`;
  return { ok: false, missing: r.status === "ok" && r.exitCode === 2, message };
}

/**
 * Write text files relative to the workdir, creating folders; throws with the reason when
 * one cannot be written. A link at a file's own path is followed (an editor writes through
 * it) unless `replaceLinks`, which the engine's own files (tests) use: the link is removed
 * and a plain file written in its place.
 */
export async function writeWorkdirFiles(sb: Sandbox, files: Record<string, string>, timeoutMs: number, signal?: AbortSignal, replaceLinks = false): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const r = await sb.exec(["bash", "-c", WRITE, "write", rel, sb.workdir, replaceLinks ? "replace" : "follow"], { ...opts(timeoutMs, signal), stdin: text });
    if (r.status !== "ok" || r.exitCode !== 0) throw new WorkdirWriteError(r.status === "ok" ? r.stderr.trim() || `writing '${rel}' failed (exit ${r.exitCode})` : `writing '${rel}' failed: ${r.reason ?? r.status}`);
  }
}

/**
 * Files for {@link withFilesWritten}: at most this many bytes go base64-encoded on the
 * command line (Linux caps one argument at 128 KiB); larger sets are written first.
 */
const INLINE_LIMIT = 64 * 1024;
const COPY_FAILED = "rlenv: could not copy files into the workdir:";

/**
 * A command line that first writes `files` into the workdir (resolved in the sandbox, as
 * writeWorkdirFiles does with replaceLinks) and then runs `command`: one exec instead of two, which is most
 * of a verifier's cost when the tests themselves are quick. Null when the files are too
 * big to pass inline; then write them with writeWorkdirFiles and run the command alone.
 */
export function withFilesWritten(workdir: string, files: Record<string, string>, command: string): string[] | null {
  const pairs = Object.entries(files).flatMap(([rel, text]) => [rel, Buffer.from(text).toString("base64")]);
  if (pairs.reduce((n, p) => n + p.length, 0) > INLINE_LIMIT) return null;
  const script = `w=$(realpath -e -- "$1") || { echo "${COPY_FAILED} the workdir is missing" >&2; exit 97; }
cmd=$2; shift 2
while [ $# -ge 2 ]; do
  [ -L "$w/$1" ] && rm -f -- "$w/$1"
  f=$(realpath -m -- "$1") || exit 97
  case "$f" in "$w"/*) ;; *) echo "${COPY_FAILED} '$1' resolves to $f, outside the workdir" >&2; exit 97;; esac
  { mkdir -p -- "$(dirname -- "$f")" && printf %s "$2" | base64 -d > "$f"; } || { echo "${COPY_FAILED} '$1'" >&2; exit 97; }
  shift 2
done
exec bash -c "$cmd"`;
  return ["bash", "-c", script, "with-files", workdir, command, ...pairs];
}

/** The message when withFilesWritten could not copy a file, from the exec's stderr; null when the copy succeeded. */
export function copyFailure(stderr: string): string | null {
  const line = stderr.split("\n").find((l) => l.startsWith(COPY_FAILED));
  return line ?? null;
}

export class WorkdirWriteError extends Error {
  override name = "WorkdirWriteError";
}
