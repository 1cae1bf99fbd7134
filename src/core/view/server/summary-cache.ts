import { createHash } from "node:crypto";
import { readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mkdirs, renameFile, writeText } from "./file-calls";
import type { RolloutSummary } from "./rollout-summary";

/** Bumped when a summary's meaning changes: an older cache is then ignored, never misread. */
const CACHE_VERSION = 1;
/** Files summarised at once: their reads overlap while each one's lines are parsed. */
const AHEAD = 16;
/** Summaries written to the disk cache's text between two turns of the event loop. */
const SAVE_SLICE = 500;

/** Where `rlenv` keeps its caches ($RLENV_CACHE_DIR, else $XDG_CACHE_HOME/rlenv, else ~/.cache/rlenv); the view's under `view/`. */
export function viewCacheDir(): string {
  const base = process.env.RLENV_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "rlenv");
  return path.join(base, "view");
}

/** A version of a file: a summary made from another version is not its summary. */
const versionOf = (st: Stats) => `${st.size}:${st.mtimeMs}:${st.ino}`;

const isNumOrNull = (v: unknown) => v === null || typeof v === "number";

/**
 * A cached summary's shape, checked by hand: the schema's check of 10,000 of them cost as much as
 * the read (the cache is this program's own writing, in the user's folder; a wrong one is
 * summarised again, and every row a page sends is checked against its schema on the way out).
 */
function looksLikeSummary(v: unknown): v is RolloutSummary {
  if (!v || typeof v !== "object") return false;
  const { row, report, policy } = v as Record<string, unknown>;
  if (!row || typeof row !== "object" || !Array.isArray(policy) || (report !== null && typeof report !== "object")) return false;
  const r = row as Record<string, unknown>;
  return (
    typeof r.id === "string" &&
    typeof r.status === "string" &&
    (r.task === null || typeof r.task === "string") &&
    ["sample", "reward", "turns", "duration_ms", "tokens", "started", "ended"].every((k) => isNumOrNull(r[k])) &&
    Array.isArray(r.problems) &&
    typeof r.problemCount === "number" &&
    Array.isArray(r.meta) &&
    (report === null || Array.isArray((report as Record<string, unknown>).components))
  );
}

interface Entry {
  version: string;
  summary: RolloutSummary;
}

/**
 * The dashboard's rollout summaries, by file and version (size, mtime, inode): a file summarised
 * before and not changed since is not read again. Kept in memory, and on disk per run folder under
 * the user's cache folder (never in the run folder: a run is data another tool may hash, archive or
 * serve read-only), so a new `rlenv view` of a run opened before reads no rollout file at all. The
 * disk copy is a hint: one that does not parse, or an entry that does not fit the schema, is
 * summarised again; one that cannot be written leaves the cache in memory only.
 */
export class SummaryCache {
  private readonly mem = new Map<string, Entry>();
  /** Run folders whose disk cache was read (or found missing). */
  private readonly loaded = new Set<string>();
  private readonly dirty = new Set<string>();
  /** The disk write under way per run folder. */
  private readonly saving = new Map<string, Promise<void>>();

  /** `dir`: the folder of the disk caches; null keeps them in memory only. */
  constructor(private readonly dir: string | null = viewCacheDir()) {}

  /** Each file's summary, in the files' order: cached ones as they are, the others made by `summarise` (and cached). */
  async summaries(
    runDir: string,
    files: readonly string[],
    summarise: (file: string) => Promise<RolloutSummary>,
  ): Promise<RolloutSummary[]> {
    this.load(runDir);
    const out: RolloutSummary[] = new Array(files.length);
    const todo: Array<{ i: number; file: string; version: string }> = [];
    for (const [i, file] of files.entries()) {
      let version: string;
      try {
        version = versionOf(statSync(file));
      } catch {
        version = "gone";
      }
      const hit = this.mem.get(file);
      if (hit && hit.version === version) out[i] = hit.summary;
      else todo.push({ i, file, version });
    }
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const t = todo[next++]!;
        const summary = await summarise(t.file);
        out[t.i] = summary;
        // A file still being written is summarised again on its next change; it is cached all the same.
        this.mem.set(t.file, { version: t.version, summary });
      }
    };
    await Promise.all(Array.from({ length: Math.min(AHEAD, todo.length) }, worker));
    if (todo.length > 0) this.dirty.add(runDir);
    return out;
  }

  /**
   * Writes the disk cache of a run folder whose summaries changed (a no-op otherwise); never rejects.
   * The text is made a slice of entries at a time, giving the event loop back between slices: one
   * JSON.stringify of 10,000 summaries held up the requests that came meanwhile (the table's next page).
   */
  save(runDir: string, files: readonly string[]): Promise<void> {
    if (!this.dir || !this.dirty.delete(runDir)) return this.saving.get(runDir) ?? Promise.resolve();
    // One write at a time per run folder: the next waits for the one under way.
    const next = (this.saving.get(runDir) ?? Promise.resolve()).then(() => this.write(runDir, files)).catch(() => {});
    this.saving.set(runDir, next);
    return next;
  }

  private async write(runDir: string, files: readonly string[]): Promise<void> {
    const parts: string[] = [];
    for (const [i, f] of files.entries()) {
      const e = this.mem.get(f);
      if (e) parts.push(`${JSON.stringify(path.basename(f))}:${JSON.stringify(e)}`);
      if (i % SAVE_SLICE === SAVE_SLICE - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const text = `{"version":${CACHE_VERSION},"runDir":${JSON.stringify(runDir)},"entries":{${parts.join(",")}}}`;
    try {
      const file = this.fileOf(runDir);
      await mkdirs(path.dirname(file));
      // Written beside and renamed: a reader (another `rlenv view`) sees the old cache or the new, never half of one.
      const tmp = `${file}.${process.pid}.tmp`;
      await writeText(tmp, text);
      await renameFile(tmp, file);
    } catch {
      // A read-only or full cache folder: the summaries stay cached in memory.
    }
  }

  /** The disk cache of a run folder read into memory, once. */
  private load(runDir: string): void {
    if (!this.dir || this.loaded.has(runDir)) return;
    this.loaded.add(runDir);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.fileOf(runDir), "utf8"));
    } catch {
      return;
    }
    if (!raw || typeof raw !== "object") return;
    const c = raw as { version?: unknown; runDir?: unknown; entries?: unknown };
    if (c.version !== CACHE_VERSION || c.runDir !== runDir || !c.entries || typeof c.entries !== "object") return;
    const rollouts = path.join(runDir, "rollouts");
    for (const [name, e] of Object.entries(c.entries as Record<string, unknown>)) {
      if (!e || typeof e !== "object") continue;
      const { version, summary } = e as { version?: unknown; summary?: unknown };
      if (typeof version === "string" && looksLikeSummary(summary)) this.mem.set(path.join(rollouts, name), { version, summary });
    }
  }

  /** One cache file per run folder, named by a hash of its real path. */
  private fileOf(runDir: string): string {
    let real = runDir;
    try {
      real = realpathSync(runDir);
    } catch {}
    const name = createHash("sha256").update(real).digest("hex").slice(0, 32);
    return path.join(this.dir!, `rollouts-${name}.v${CACHE_VERSION}.json`);
  }
}
