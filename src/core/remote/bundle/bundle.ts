import {
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  writeSync,
} from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import tar from "tar-stream";
import { TarReader } from "./tar-reader";

/** Limits on what an uploaded bundle may unpack to. */
export interface UnpackLimits {
  maxBytes: number;
  maxFiles: number;
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxBytes: 512 * 1024 * 1024, maxFiles: 20_000 };

/** A bundle that may not be unpacked; `status` is the HTTP status to answer with. */
export class BundleError extends Error {
  override name = "BundleError";
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
  }
}

/**
 * Segments of letters, digits and `_ - . +` (none of them "." or ".."), split by single
 * slashes, with an optional trailing slash: a relative path that needs no cleaning.
 */
const PLAIN_PATH = /^(?!\.{1,2}(?:\/|$))[\w.+-]+(?:\/(?!\.{1,2}(?:\/|$))[\w.+-]+)*\/?$/;

/** The entry name as a safe relative path, or a reason it is not one. */
export function safeEntryPath(name: string): { ok: true; rel: string } | { ok: false; reason: string } {
  // Most names are plain "a/b/c.jsonl" (every entry of a pull): checked in one pass.
  if (PLAIN_PATH.test(name)) return { ok: true, rel: name.endsWith("/") ? name.slice(0, -1) : name };
  if (name.includes("\0")) return { ok: false, reason: "NUL in the name" };
  if (name.startsWith("/") || /^[A-Za-z]:[\\/]/.test(name)) return { ok: false, reason: "absolute path" };
  if (name.includes("\\")) return { ok: false, reason: "backslash in the name" };
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) return { ok: false, reason: "`..` in the path" };
  return { ok: true, rel: parts.join("/") };
}

/**
 * Unpacks a tar stream into `dest` (which must not exist yet), refusing anything but plain
 * files and folders inside it: no `..`, no absolute names, no links, no devices or FIFOs,
 * and no more than the limits. On any refusal `dest` is removed: nothing is left written.
 */
export async function unpackBundle(
  source: Readable,
  dest: string,
  limits: UnpackLimits = DEFAULT_UNPACK_LIMITS,
): Promise<{ files: number; bytes: number }> {
  await mkdir(dest, { recursive: false, mode: 0o755 });
  const extract = tar.extract();
  let files = 0;
  let bytes = 0;
  const done = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, stream, next) => {
      const fail = (err: Error) => {
        // Destroying the extractor errors the current entry stream too; that error is this one.
        stream.on("error", () => {});
        stream.resume();
        extract.destroy(err);
      };
      // A throw out of this listener is uncaught (it runs inside tar-stream's stream machinery) and
      // ends the runner with every job and connection: every file system refusal is the bundle's 400.
      try {
        writeEntry();
      } catch (e) {
        fail(entryWriteError(header.name, e));
      }
      function writeEntry() {
        const where = safeEntryPath(header.name);
        if (!where.ok) return fail(new BundleError(`bundle entry ${JSON.stringify(header.name)} refused: ${where.reason}`, 400));
        const target = path.join(dest, where.rel);
        if (header.type === "directory") {
          mkdirSync(target, { recursive: true, mode: 0o755 });
          stream.resume();
          stream.on("end", () => next());
          return;
        }
        if (header.type !== "file" && header.type !== "contiguous-file") {
          return fail(
            new BundleError(
              `bundle entry ${JSON.stringify(header.name)} refused: ${header.type} entries are not allowed (only files and folders)`,
              400,
            ),
          );
        }
        if (where.rel === "") return fail(new BundleError("bundle entry with an empty name", 400));
        files += 1;
        bytes += header.size ?? 0;
        if (files > limits.maxFiles) return fail(new BundleError(`bundle has more than ${limits.maxFiles} files`, 413));
        if (bytes > limits.maxBytes) return fail(new BundleError(`bundle unpacks to more than ${limits.maxBytes} bytes`, 413));
        mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
        // Executable bits survive (tools are scripts); setuid/setgid/sticky and group/other write do not.
        const mode = (header.mode ?? 0o644) & 0o755;
        const out = createWriteStream(target, { mode, flags: "wx" });
        pipeline(stream, out).then(
          () => next(),
          (e: unknown) => fail(entryWriteError(header.name, e)),
        );
      }
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
  });
  try {
    await Promise.all([pipeline(source, extract).catch((e: unknown) => Promise.reject(e)), done]);
  } catch (err) {
    await rm(dest, { recursive: true, force: true });
    if (err instanceof BundleError) throw err;
    throw new BundleError(`bundle is not a readable tar: ${(err as Error).message}`, 400);
  }
  return { files, bytes };
}

/**
 * A bundle entry the file system refused (a file where a folder must go, a name given twice, a folder
 * where a file must go): the bundle's fault, answered 400 with the entry's name.
 */
function entryWriteError(name: string, e: unknown): BundleError {
  if (e instanceof BundleError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === "EEXIST"
      ? "its path is already taken by an earlier entry"
      : code === "ENOTDIR"
        ? "an earlier entry is a file where this one needs a folder"
        : code === "EISDIR"
          ? "an earlier entry is a folder of the same name"
          : (e as Error).message;
  return new BundleError(`bundle entry ${JSON.stringify(name)} refused: ${why}`, 400);
}

/** What to leave out of a packed folder (names at any depth). */
const SKIP = new Set([".git", "node_modules", "runs", ".rlenv"]);

/**
 * Packs `dir` as a tar stream under `prefix/`, plus extra in-memory files at the root.
 * Links are refused (the runner would refuse them too); files are streamed, not buffered.
 */
export function packDirectory(
  dir: string,
  prefix: string,
  extra: Record<string, string | Buffer> = {},
  opts: { skip?: Set<string> } = {},
): Readable {
  const pack = tar.pack();
  const skip = opts.skip ?? SKIP;
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of readdirSync(abs).sort()) {
      if (skip.has(name)) continue;
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(a);
      if (st.isSymbolicLink()) throw new Error(`${a}: symbolic link to ${readlinkSync(a)}; bundles carry plain files only`);
      if (st.isDirectory()) {
        pack.entry({ name: `${prefix}/${r}/`, type: "directory", mode: 0o755 });
        await walk(a, r);
      } else if (st.isFile()) {
        await new Promise<void>((resolve, reject) => {
          const entry = pack.entry({ name: `${prefix}/${r}`, size: st.size, mode: st.mode & 0o755, mtime: st.mtime }, (err) =>
            err ? reject(err) : resolve(),
          );
          // The entry errors too when the upload is cut off; that is the pack's error to report.
          entry.on("error", reject);
          createReadStream(a).on("error", reject).pipe(entry);
        });
      }
    }
  };
  (async () => {
    for (const [name, content] of Object.entries(extra)) pack.entry({ name, mode: 0o644 }, content);
    if (prefix) pack.entry({ name: `${prefix}/`, type: "directory", mode: 0o755 });
    await walk(dir, "");
    pack.finalize();
  })().catch((err: unknown) => pack.destroy(err as Error));
  return pack as unknown as Readable;
}

/**
 * Client side of a pull: writes the files under `stripPrefix/` of a tar stream into
 * `dest`, skipping anything that is not a plain file or folder or would land outside.
 */
export async function unpackToDir(source: Readable, dest: string, stripPrefix: string): Promise<number> {
  let files = 0;
  const root = path.resolve(dest);
  // Folders made so far: a run folder is a thousand files in one folder, one mkdir will do.
  const made = new Set<string>();
  const mkdirOnce = (dir: string) => {
    if (made.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    made.add(dir);
  };
  const reader = new TarReader((e) => {
    const where = safeEntryPath(e.name);
    const rel = where.ok ? where.rel : "";
    const inside = rel === stripPrefix ? "" : rel.startsWith(`${stripPrefix}/`) ? rel.slice(stripPrefix.length + 1) : null;
    if (!where.ok || inside === null || e.type === "other") return;
    // safeEntryPath leaves plain "a/b" segments (no "", "." or ".."): joined as they are.
    const target = inside ? `${root}/${inside}` : root;
    if (e.type === "directory") {
      mkdirOnce(target);
      return;
    }
    mkdirOnce(target.slice(0, target.lastIndexOf("/")));
    files += 1;
    // Trajectories are small: one open, write and close each, much cheaper than a stream per file.
    const fd = openSync(target, WRITE_FLAGS, 0o644);
    try {
      for (let at = 0; at < e.body.length; ) at += writeSync(fd, e.body, at, e.body.length - at);
    } finally {
      closeSync(fd);
    }
  });
  for await (const chunk of source) reader.push(chunk as Buffer);
  reader.end();
  return files;
}

/** As writeFileSync's "w", given as numbers so Node does not parse a flag string per file. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
