import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { MethodName, Params, Result } from "../protocol/methods";
import { TOKEN_PAGE } from "../protocol/tokens";
import { type RowSummary, STEP_PAGE } from "../protocol/trajectory";
import { isViewerMethod, VIEWER_METHODS } from "../protocol/viewer-methods";
import { alignMany, diffsOf, documentsView, imagesOf, lastScene, mergeDiffs, type RowEvents, sceneChecks } from "../model/artifacts";
import { markCitations } from "../model/citations";
import { Confinement, isInside } from "./confine";
import { ViewRequestError } from "./request-error";
import { RunSearch } from "./search-index";
import { TrajectoryIndex } from "./trajectory-index";
import type { TokenPieces } from "./token-text";
import { stepTokens } from "./turn-tokens";

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
    } = {},
  ) {
    this.confinement = new Confinement(root);
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
   * the audit report's: classic zod, slower to build) load on their first request, so a server
   * that opens one trajectory answers its first screen without building them.
   */
  private async schemasOf(method: string) {
    if (isViewerMethod(method)) return VIEWER_METHODS[method];
    const { METHODS, isMethod } = await import("../protocol/methods");
    return isMethod(method) ? METHODS[method] : undefined;
  }

  private async events(idx: TrajectoryIndex, from: number, to: number): Promise<RowEvents[]> {
    return (await idx.entries(from, to)).map(({ row, entries }) => ({
      row,
      events: entries.flatMap((e) => ("event" in e ? [e.event] : [])),
    }));
  }

  /** Events of the listed rows only, reading each once. */
  private async eventsOfRows(idx: TrajectoryIndex, rows: number[]): Promise<RowEvents[]> {
    const out: RowEvents[] = [];
    for (const r of rows) out.push(...(await this.events(idx, r, r + 1)));
    return out;
  }

  private async run<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    const r = await this.dispatch(method, params as never);
    return r as Result<M>;
  }

  private async dispatch(method: MethodName, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case "meta": {
        const file = String(params.file);
        return (await this.index(this.resolve(file))).meta(file);
      }
      case "rows": {
        const idx = await this.index(this.resolve(String(params.file)));
        const from = Number(params.from);
        const to = Math.min(Number(params.to), from + 500);
        return idx.rows(from, to);
      }
      case "step": {
        const idx = await this.index(this.resolve(String(params.file)));
        const row = Number(params.row);
        if (row >= idx.rowCount) throw new ViewRequestError(`step ${row}: the file has ${idx.rowCount} steps`);
        const from = Number(params.from ?? 0);
        const w = await idx.stepWindow(row, from, Number(params.limit ?? STEP_PAGE));
        return { row, entries: w.entries, from, total: w.total };
      }
      case "tokens": {
        const abs = this.resolve(String(params.file));
        const idx = await this.fullIndex(abs);
        const row = Number(params.row);
        if (row >= idx.rowCount) throw new ViewRequestError(`step ${row}: the file has ${idx.rowCount} steps`);
        return stepTokens(idx, row, {
          pieces: (await this.opts.tokenPieces?.(abs)) ?? null,
          ...(params.line !== undefined ? { line: Number(params.line) } : {}),
          from: Number(params.from ?? 0),
          limit: Number(params.limit ?? TOKEN_PAGE),
        });
      }
      case "audit": {
        const rel = String(params.file);
        const abs = this.resolve(rel);
        try {
          const { auditView } = await import("./audit-report");
          return auditView(this.root, rel, abs, (f) => this.readable(f));
        } catch (err) {
          throw new ViewRequestError(err instanceof Error ? err.message : String(err));
        }
      }
      case "diff": {
        const idx = await this.fullIndex(this.resolve(String(params.file)));
        const row = params.row === null ? null : Number(params.row);
        const rows = row === null ? idx.rowsWith("diff") : [row];
        return mergeDiffs(diffsOf(await this.eventsOfRows(idx, rows)));
      }
      case "scene": {
        const idx = await this.fullIndex(this.resolve(String(params.file)));
        const row = Number(params.row);
        const sceneRows = idx.rowsWith("scene", row);
        const last = sceneRows[sceneRows.length - 1];
        const scene = last === undefined ? null : lastScene(await this.eventsOfRows(idx, [last]));
        // Every render of the rollout, each labelled with its step: the panel marks those after the selected one.
        const images = imagesOf(await this.eventsOfRows(idx, idx.rowsWith("images")));
        const reward = idx.rewardEvent();
        return {
          row: scene?.row ?? null,
          scene: scene?.scene ?? null,
          images,
          checks: sceneChecks(reward?.type === "reward" ? reward : null),
        };
      }
      case "documents": {
        const idx = await this.fullIndex(this.resolve(String(params.file)));
        const reward = idx.rewardEvent();
        return markCitations(documentsView(await this.events(idx, 0, idx.rowCount), reward?.type === "reward" ? reward : null));
      }
      case "align": {
        const signature = async (file: string) => {
          const idx = await this.fullIndex(this.resolve(file));
          const rows: RowSummary[] = [];
          for (let i = 0; i < idx.rowCount; i += 500) for (const r of await idx.rows(i, i + 500)) rows.push(r);
          return rows.map((r) => `${r.kind}:${r.tools.join(",")}`);
        };
        const sigs: string[][] = [];
        for (const f of params.files as string[]) sigs.push(await signature(f));
        return alignMany(sigs);
      }
      case "search": {
        const rel = String(params.dir);
        const runDir = this.resolve(rel);
        const only = Array.isArray(params.files) ? new Set(params.files as string[]) : null;
        const { rolloutFiles } = await import("../../runs/run-dir");
        const files = this.readableRollouts(runDir, rolloutFiles)
          .map((abs) => ({ abs, rel: path.posix.join(rel, "rollouts", path.basename(abs)) }))
          .filter((f) => !only || only.has(f.rel));
        return this.search.search(files, String(params.query), Number(params.limit ?? 100));
      }
      case "run":
      case "rollouts": {
        const rel = String(params.dir);
        const { runDashboard } = await import("./run-folder");
        const run = await runDashboard(
          this.resolve(rel),
          rel,
          (f) => this.fullIndex(f),
          (f) => this.readable(f),
        );
        return method === "run" ? run : run.rollouts;
      }
    }
  }
}
