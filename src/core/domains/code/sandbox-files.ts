import type { Sandbox } from "../../model/sandbox";

/**
 * File reads and writes for the code tools and the tests verifier, done by a command
 * inside the sandbox rather than through Sandbox.readFiles/writeFiles. The agent can
 * create symbolic links; resolved inside the sandbox, a link can only reach what the
 * sandbox sees, and the path is checked to stay in the workdir after resolution. (A
 * backend that copies files on the host side could otherwise follow an agent's link to
 * a host file.) Where the sandbox has putWorkdirFiles (docker: its agent writes them, resolved
 * inside the container by the same rules) writes take that path and start no process.
 */
const RESOLVE = `w=$(realpath -e -- "$2") || { echo "the workdir is missing" >&2; exit 5; }
case "$f" in "$w"/*) ;; *) echo "'$1' resolves to $f, outside the workdir" >&2; exit 3;; esac`;

const READ = `f=$(realpath -e -- "$1" 2>/dev/null) || { echo "no file '$1' in the workdir" >&2; exit 2; }
${RESOLVE}
[ -f "$f" ] || { echo "'$1' is not a regular file" >&2; exit 4; }
exec cat -- "$f"`;

/**
 * Where a file `$1` lands, as \`f\`, resolved in the sandbox against the workdir \`w\` (the shell
 * is in it): its folder through \`cd -P\`, a shell builtin, when the folder exists and the file
 * is no link (a write through a link, or into folders still to be made, asks realpath). Both
 * scripts below are POSIX sh and avoid spawning anything they need not: each spawn is a
 * millisecond or two in a container, several of them more than a short test itself takes.
 */
const PLACE = `case "$1" in */*) d=\${1%/*} ;; *) d=. ;; esac
if [ ! -L "$1" ] && [ -d "$d" ] && cd -P -- "$d" 2>/dev/null; then f=$PWD/\${1##*/}; cd "$w" || exit 5
else f=$(realpath -m -- "$1") || exit 2; fi`;

const WRITE = `cd -P -- "$2" 2>/dev/null || { echo "the workdir is missing" >&2; exit 5; }
w=$PWD
[ "$3" = replace ] && [ -L "$1" ] && rm -f -- "$1"
${PLACE}
case "$f" in "$w"/*) ;; *) echo "'$1' resolves to $f, outside the workdir" >&2; exit 3;; esac
[ -d "$f" ] && { echo "'$1' is a folder" >&2; exit 4; }
# A FIFO (or socket, device) there would hold the write forever: the engine's own file replaces it, a tool's write refuses it.
if [ -e "$f" ] && [ ! -f "$f" ]; then [ "$3" = replace ] && rm -f -- "$f" || { echo "'$1' is not a regular file (a FIFO, a socket or a device)" >&2; exit 4; }; fi
{ [ -d "\${f%/*}" ] || mkdir -p -- "\${f%/*}"; } || exit 2
if [ "$4" = arg ]; then printf %s "$5" > "$f"; else exec cat > "$f"; fi`;

/**
 * Text for {@link withFilesWritten} and writeWorkdirFiles: at most this many bytes go on
 * the command line (Linux caps one argument at 128 KiB); larger sets are written first.
 */
const INLINE_LIMIT = 64 * 1024;

/** Text an argument can carry exactly: no NUL, valid UTF-16 (a lone surrogate would not survive UTF-8). */
const argSafe = (text: string) => !text.includes("\0") && Buffer.from(text, "utf8").toString("utf8") === text;

export type FileRead = { ok: true; text: string; truncated: boolean } | { ok: false; missing: boolean; message: string };

const opts = (timeoutMs: number, signal?: AbortSignal) => ({ timeoutMs, ...(signal ? { signal } : {}) });

export async function readWorkdirFile(sb: Sandbox, rel: string, timeoutMs: number, signal?: AbortSignal): Promise<FileRead> {
  const r = await sb.exec(["bash", "-c", READ, "read", rel, sb.workdir], opts(timeoutMs, signal));
  if (r.status === "ok" && r.exitCode === 0) return { ok: true, text: r.stdout, truncated: r.truncated !== undefined };
  const message =
    r.status === "ok"
      ? r.stderr.trim() || `reading '${rel}' failed (exit ${r.exitCode})`
      : `reading '${rel}' failed: ${r.reason ?? r.status}`;
  return { ok: false, missing: r.status === "ok" && r.exitCode === 2, message };
}

/**
 * Write files (text, or exact bytes) relative to the workdir, creating folders; throws with the reason when
 * one cannot be written. A link at a file's own path is followed (an editor writes through
 * it) unless `replaceLinks`, which the engine's own files (tests) use: the link is removed
 * and a plain file written in its place.
 */
export async function writeWorkdirFiles(
  sb: Sandbox,
  files: Record<string, string | Buffer>,
  timeoutMs: number,
  signal?: AbortSignal,
  replaceLinks = false,
): Promise<void> {
  if (Object.keys(files).length === 0) return;
  if (sb.putWorkdirFiles) {
    // The sandbox writes them itself, resolved inside it as the script below does: no shell to start.
    signal?.throwIfAborted();
    const r = await sb.putWorkdirFiles({ files, links: replaceLinks ? "replace" : "follow" });
    if (!r.ok) throw new WorkdirWriteError(r.message);
    return;
  }
  for (const [rel, content] of Object.entries(files)) {
    // Small text goes as an argument (written by the printf builtin, no cat to spawn); the rest, and bytes, on stdin.
    const inline = typeof content === "string" && Buffer.byteLength(content) <= INLINE_LIMIT && argSafe(content);
    const how = inline ? ["arg", content] : ["stdin"];
    const r = await sb.exec(["sh", "-c", WRITE, "write", rel, sb.workdir, replaceLinks ? "replace" : "follow", ...how], {
      ...opts(timeoutMs, signal),
      ...(inline ? {} : { stdin: content }),
    });
    if (r.status !== "ok" || r.exitCode !== 0)
      throw new WorkdirWriteError(
        r.status === "ok"
          ? r.stderr.trim() || `writing '${rel}' failed (exit ${r.exitCode})`
          : `writing '${rel}' failed: ${r.reason ?? r.status}`,
      );
  }
}

const COPY_FAILED = "rlenv: could not copy files into the workdir:";
/**
 * A command bash would run as plain words (no quotes, variables, globs, redirections or
 * assignments): exec'd by the script's own word splitting, which saves starting bash.
 */
export const SIMPLE_COMMAND = /^[\w./:,+@%-]+( [\w./:,+@%-]+)*$/;

/**
 * A command line that first writes `files` into the workdir (resolved in the sandbox, as
 * writeWorkdirFiles does with replaceLinks) and then runs `command`: one exec instead of two, which is most
 * of a verifier's cost when the tests themselves are quick. Null when the files are too
 * big to pass inline; then write them with writeWorkdirFiles and run the command alone.
 * For a sandbox without putWorkdirFiles: one that has it takes exec's writeFirst instead.
 */
export function withFilesWritten(workdir: string, files: Record<string, string | Buffer>, command: string): string[] | null {
  // Text goes as it is (written by the printf builtin); bytes, and text an argument cannot carry (NUL, broken UTF-16), as base64.
  const triples = Object.entries(files).flatMap(([rel, c]) =>
    typeof c === "string" && argSafe(c)
      ? [rel, "raw", c]
      : [rel, "b64", (typeof c === "string" ? Buffer.from(c, "utf8") : c).toString("base64")],
  );
  if (triples.reduce((n, p) => n + Buffer.byteLength(p), 0) > INLINE_LIMIT) return null;
  const script = `cd -P -- "$1" 2>/dev/null || { echo "${COPY_FAILED} the workdir is missing" >&2; exit 97; }
w=$PWD; cmd=$2; simple=${SIMPLE_COMMAND.test(command) ? 1 : 0}; shift 2
while [ $# -ge 3 ]; do
  [ -L "$1" ] && rm -f -- "$1"
  ${PLACE.replace(/exit [25]/g, "exit 97").replace(/\n/g, "\n  ")}
  case "$f" in "$w"/*) ;; *) echo "${COPY_FAILED} '$1' resolves to $f, outside the workdir" >&2; exit 97;; esac
  [ -e "$f" ] && [ ! -f "$f" ] && [ ! -d "$f" ] && rm -f -- "$f"
  { { [ -d "\${f%/*}" ] || mkdir -p -- "\${f%/*}"; } && if [ "$2" = b64 ]; then printf %s "$3" | base64 -d > "$f"; else printf %s "$3" > "$f"; fi; } || { echo "${COPY_FAILED} '$1'" >&2; exit 97; }
  shift 3
done
[ "$simple" = 1 ] && exec $cmd
exec bash -c "$cmd"`;
  return ["sh", "-c", script, "with-files", workdir, command, ...triples];
}

/** The message when withFilesWritten could not copy a file, from the exec's stderr; null when the copy succeeded. */
export function copyFailure(stderr: string): string | null {
  const line = stderr.split("\n").find((l) => l.startsWith(COPY_FAILED));
  return line ?? null;
}

export class WorkdirWriteError extends Error {
  override name = "WorkdirWriteError";
}
