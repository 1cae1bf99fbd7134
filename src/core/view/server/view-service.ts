import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { DashboardWithRows } from "../protocol/dashboard";
import type { MethodName, Params, Result } from "../protocol/methods";
import { isViewerMethod, VIEWER_METHODS } from "../protocol/viewer-methods";
import type { RowEvents } from "../model/artifacts";
import { Confinement, isInside } from "./confine";
import { ViewRequestError } from "./request-error";
import { type RolloutSummary, summaryOf } from "./rollout-summary";
import type { RolloutTable } from "./rollout-table";
import { RunSearch } from "./search-index";
import { SummaryCache, viewCacheDir } from "./summary-cache";
import { TrajectoryIndex } from "./trajectory-index";
import type { TokenPieces } from "./token-text";
import { VIEW_HANDLERS } from "./view-handlers";

export { ViewRequestError } from "./request-error";

/**
 * Answers the apps' requests for files under one root folder, whichever transport
 * carries them (the webview host or the HTTP server). Paths in requests are relative
 * to the root and may not leave it. Indexes are cached and refreshed when a file grows.
 */
export class ViewService {
  private readonly indexes = new Map<string, { idx: Promise<TrajectoryIndex>; size: number }>();

  private readonly confinement: Confinement;
  /** Full-text search of the run folders served, built on first use. */
  readonly search = new RunSearch();
  /** The dashboard's rollout summaries, by file version (see SummaryCache). */
  private readonly summaryCache: SummaryCache;
  /** Each run folder's rollout table as its dashboard last built it (by absolute folder), and how many were built. */
  readonly tables = new Map<string, RolloutTable>();
  tableBuilds = 0;
  /** Dashboards being built, by absolute run folder. */
  readonly building = new Map<string, Promise<DashboardWithRows>>();
  /** Resolves once the build under way has made its rows (its table), before its aggregates. */
  readonly rowsReady = new Map<string, Promise<void>>();

  /**
   * `tokenPieces`: the text of a rollout's tokens where its run's tokenizer is at hand (the
   * tokenizer code is heavy, so the CLI and the editor's engine bundle pass it in; without it, ids).
   */
  constructor(
    readonly root: string,
    private readonly opts: {
      tokenPieces?: (rollout: string) => TokenPieces | null | Promise<TokenPieces | null>;
      /** A file's index reads past its first chunk once this resolves (see TrajectoryIndex.open). */
      restAfter?: Promise<void>;
      /** The folder of the rollout summaries' disk cache (default: viewCacheDir()); null keeps them in memory only. */
      summaryCache?: string | null;
    } = {},
  ) {
    this.confinement = new Confinement(root);
    this.summaryCache = new SummaryCache(opts.summaryCache === undefined ? viewCacheDir() : opts.summaryCache);
  }

  /**
   * The summary of each rollout file of a run folder (absolute paths), cached by file version: a
   * file the cache holds is not read. The disk cache is written after the reply has gone.
   */
  async summaries(runDir: string, files: string[]): Promise<RolloutSummary[]> {
    const out = await this.summaryCache.summaries(runDir, files, (f) => this.summarise(f));
    setImmediate(() => void this.summaryCache.save(runDir, files));
    return out;
  }

  /**
   * One file read whole and summarised. Its index is kept only while the rollout has no end (a
   * live run's file grows, and the kept index reads only what was appended); a finished
   * rollout's summary is all the dashboard needs of it.
   */
  private async summarise(abs: string): Promise<RolloutSummary> {
    if (this.indexes.has(abs)) return summaryOf(abs, await this.fullIndex(abs));
    const idx = await TrajectoryIndex.open(abs);
    if (!idx.complete) this.indexes.set(abs, { idx: Promise.resolve(idx), size: idx.meta("").bytes });
    return summaryOf(abs, idx);
  }

  /** Resolves a request path inside the root, links included, or throws. */
  resolve(rel: string): string {
    const abs = path.resolve(this.root, rel);
    if (!isInside(path.resolve(this.root), abs)) throw new ViewRequestError(`${rel}: outside the served folder`);
    if (this.confinement.realInside(abs) === null) throw new ViewRequestError(`${rel}: links outside the served folder`);
    return abs;
  }

  /** Whether a file found by listing a folder may be read (it does not link out). */
  readable(abs: string): boolean {
    return this.confinement.realInside(abs) !== null;
  }

  /**
   * A run's rollout files that may be read, by name. A plain file listed in a folder whose
   * real path is inside is inside too: only links need their real path resolved (a search
   * lists a thousand files per query, and resolving each costs a system call per folder of its path).
   */
  readableRollouts(runDir: string, rolloutFiles: (runDir: string) => string[]): string[] {
    const dir = path.join(runDir, "rollouts");
    let plain: Set<string>;
    try {
      plain = new Set(
        readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => e.name),
      );
    } catch {
      return [];
    }
    const dirInside = this.confinement.realInside(dir) !== null;
    return rolloutFiles(runDir).filter((abs) => (dirInside && plain.has(path.basename(abs))) || this.readable(abs));
  }

  /** The index of a file with every line indexed (for views that need the whole rollout). */
  async fullIndex(abs: string): Promise<TrajectoryIndex> {
    const idx = await this.index(abs);
    await idx.whenIndexed();
    return idx;
  }

  /** The (cached) index of a trajectory file, refreshed when its size changed; may still be scanning. */
  async index(abs: string): Promise<TrajectoryIndex> {
    let size: number;
    try {
      size = statSync(abs).size;
    } catch {
      throw new ViewRequestError(`${path.relative(this.root, abs) || abs}: no such file`);
    }
    const cached = this.indexes.get(abs);
    if (!cached) {
      // Large files: answer once the first chunk is indexed; the rest follows in the background.
      const idx = TrajectoryIndex.open(abs, { firstChunk: true, ...(this.opts.restAfter ? { restAfter: this.opts.restAfter } : {}) });
      this.indexes.set(abs, { idx, size });
      idx.catch(() => this.indexes.delete(abs));
      return idx;
    }
    const idx = await cached.idx;
    if (size !== cached.size && !idx.scanning) {
      cached.size = size;
      await idx.refresh();
    }
    return idx;
  }

  /** Validates params, runs the method, validates the result: the host half of "parsed on both sides". */
  async handle(method: string, params: unknown): Promise<unknown> {
    const schemas = await this.schemasOf(method);
    if (!schemas) throw new ViewRequestError(`unknown method ${JSON.stringify(method)}`);
    const p = schemas.params.safeParse(params);
    if (!p.success)
      throw new ViewRequestError(`${method}: bad params: ${p.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const result = await this.run(method as MethodName, p.data as never);
    return schemas.result.parse(result);
  }

  /**
   * A method's params and result schemas. The viewer's are at hand; the others (the dashboard's,
   * and the audit report's in classic zod, slower to build) load on their first request, so a server
   * that opens one trajectory answers its first screen without building them.
   */
  private async schemasOf(method: string) {
    if (isViewerMethod(method)) return VIEWER_METHODS[method];
    const { METHODS, isMethod } = await import("../protocol/methods");
    return isMethod(method) ? METHODS[method] : undefined;
  }

  /** The events of rows [from, to). */
  async events(idx: TrajectoryIndex, from: number, to: number): Promise<RowEvents[]> {
    return (await idx.entries(from, to)).map(({ row, entries }) => ({
      row,
      events: entries.flatMap((e) => ("event" in e ? [e.event] : [])),
    }));
  }

  /** Events of the listed rows only, reading each once. */
  async eventsOfRows(idx: TrajectoryIndex, rows: number[]): Promise<RowEvents[]> {
    const out: RowEvents[] = [];
    for (const r of rows) out.push(...(await this.events(idx, r, r + 1)));
    return out;
  }

  /** The text of a rollout's tokens, where the caller gave a tokenizer (else null: ids only). */
  async tokenPieces(abs: string): Promise<TokenPieces | null> {
    return (await this.opts.tokenPieces?.(abs)) ?? null;
  }

  /** Runs a method through its handler (view-handlers.ts, one per method). */
  private async run<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    const handler = VIEW_HANDLERS[method] as (svc: ViewService, params: never) => Promise<unknown>;
    return (await handler(this, params as never)) as Result<M>;
  }
}
