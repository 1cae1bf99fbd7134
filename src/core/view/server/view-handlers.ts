import path from "node:path";
import type { MethodName, METHODS } from "../protocol/methods";
import type { z } from "zod";
import { TOKEN_PAGE } from "../protocol/tokens";
import { STEP_PAGE } from "../protocol/trajectory";
import { alignMany, diffsOf, documentsView, imagesOf, lastScene, mergeDiffs, sceneChecks } from "../model/artifacts";
import { markCitations } from "../model/citations";
import { ViewRequestError } from "./request-error";
import { stepTokens } from "./turn-tokens";
import type { ViewService } from "./view-service";
import type { DashboardWithRows } from "../protocol/dashboard";

/** A method's params once its schema parsed them. */
type Parsed<M extends MethodName> = z.output<(typeof METHODS)[M]["params"]>;
/** One method's handler: the service's files and indexes, and the parsed params. */
type Handler<M extends MethodName> = (svc: ViewService, params: Parsed<M>) => Promise<unknown>;

/** "step N: the file has K steps" unless the row exists. */
function checkRow(row: number, rowCount: number): void {
  if (row >= rowCount) throw new ViewRequestError(`step ${row}: the file has ${rowCount} steps`);
}

/**
 * The run dashboard of a run folder (the `run` method), built from its rollouts' cached summaries;
 * its rows become the folder's table, which `rolloutPage`, `rollouts` and a filtered search read.
 */
function dashboardOf(svc: ViewService, rel: string): Promise<DashboardWithRows> {
  const runDir = svc.resolve(rel);
  // Requests that come while a build is under way (the page's first rows beside its `run`) share it.
  const under = svc.building.get(runDir);
  if (under) return under;
  let rowsReady: () => void = () => {};
  svc.rowsReady.set(runDir, new Promise<void>((resolve) => (rowsReady = resolve)));
  const built = buildDashboard(svc, rel, runDir, rowsReady).finally(() => {
    svc.building.delete(runDir);
    svc.rowsReady.delete(runDir);
    rowsReady();
  });
  svc.building.set(runDir, built);
  return built;
}

async function buildDashboard(svc: ViewService, rel: string, runDir: string, rowsReady: () => void): Promise<DashboardWithRows> {
  const [{ runDashboard, rolloutFiles }, { RolloutTable }] = await Promise.all([import("./run-folder"), import("./rollout-table")]);
  const d = await runDashboard(
    runDir,
    rel,
    (files) => svc.summaries(runDir, files),
    (f) => svc.readable(f),
    (dir) => svc.readableRollouts(dir, rolloutFiles),
    (rows) => {
      svc.tables.set(runDir, new RolloutTable(rows, ++svc.tableBuilds));
      rowsReady();
    },
  );
  return d;
}

/** The run folder's table as its dashboard last built it (the rows of the build under way, if any; built now if it never was). */
async function tableOf(svc: ViewService, rel: string) {
  const runDir = svc.resolve(rel);
  // The build under way, or one started now when there is no table: its rows, not its aggregates, are awaited.
  const building = svc.building.get(runDir) ?? (svc.tables.has(runDir) ? null : dashboardOf(svc, rel));
  if (building) await Promise.race([svc.rowsReady.get(runDir), building]);
  const table = svc.tables.get(runDir);
  if (!table) throw new ViewRequestError(`${rel}: the run's rollouts could not be read`);
  return table;
}

/**
 * The handler of each method, keyed by its name (as GitLens's handler registry): no switch that
 * re-casts params, and a method with no handler does not typecheck.
 */
export const VIEW_HANDLERS: { [M in MethodName]: Handler<M> } = {
  async meta(svc, params) {
    const file = String(params.file);
    return (await svc.index(svc.resolve(file))).meta(file);
  },
  async rows(svc, params) {
    const idx = await svc.index(svc.resolve(String(params.file)));
    const from = Number(params.from);
    const to = Math.min(Number(params.to), from + 500);
    return idx.rows(from, to);
  },
  async step(svc, params) {
    const idx = await svc.index(svc.resolve(String(params.file)));
    const row = Number(params.row);
    checkRow(row, idx.rowCount);
    const from = Number(params.from ?? 0);
    const w = await idx.stepWindow(row, from, Number(params.limit ?? STEP_PAGE));
    return { row, entries: w.entries, from, total: w.total };
  },
  async tokens(svc, params) {
    const abs = svc.resolve(String(params.file));
    const idx = await svc.fullIndex(abs);
    const row = Number(params.row);
    checkRow(row, idx.rowCount);
    return stepTokens(idx, row, {
      pieces: await svc.tokenPieces(abs),
      ...(params.line !== undefined ? { line: Number(params.line) } : {}),
      from: Number(params.from ?? 0),
      limit: Number(params.limit ?? TOKEN_PAGE),
    });
  },
  async audit(svc, params) {
    const rel = String(params.file);
    const abs = svc.resolve(rel);
    try {
      const { auditView } = await import("./audit-report");
      return auditView(svc.root, rel, abs, (f) => svc.readable(f));
    } catch (err) {
      throw new ViewRequestError(err instanceof Error ? err.message : String(err));
    }
  },
  async diff(svc, params) {
    const idx = await svc.fullIndex(svc.resolve(String(params.file)));
    const row = params.row === null ? null : Number(params.row);
    const rows = row === null ? idx.rowsWith("diff") : [row];
    return mergeDiffs(diffsOf(await svc.eventsOfRows(idx, rows)));
  },
  async scene(svc, params) {
    const idx = await svc.fullIndex(svc.resolve(String(params.file)));
    const row = Number(params.row);
    const sceneRows = idx.rowsWith("scene", row);
    const last = sceneRows[sceneRows.length - 1];
    const scene = last === undefined ? null : lastScene(await svc.eventsOfRows(idx, [last]));
    // Every render of the rollout, each labelled with its step: the panel marks those after the selected one.
    const images = imagesOf(await svc.eventsOfRows(idx, idx.rowsWith("images")));
    const reward = idx.rewardEvent();
    return {
      row: scene?.row ?? null,
      scene: scene?.scene ?? null,
      images,
      checks: sceneChecks(reward?.type === "reward" ? reward : null),
    };
  },
  async documents(svc, params) {
    const idx = await svc.fullIndex(svc.resolve(String(params.file)));
    const reward = idx.rewardEvent();
    return markCitations(documentsView(await svc.events(idx, 0, idx.rowCount), reward?.type === "reward" ? reward : null));
  },
  async align(svc, params) {
    // Each row's signature is kept by the index as it reads the file: no row is read again, and a
    // large file is aligned on the rows read so far (the app asks again while `partial`).
    const indexes = [];
    for (const f of params.files as string[]) indexes.push(await svc.index(svc.resolve(f)));
    const partial = indexes.some((idx) => idx.scanning);
    return { lines: alignMany(indexes.map((idx) => [...idx.rowSignatures()])), partial };
  },
  async search(svc, params) {
    const rel = String(params.dir);
    const runDir = svc.resolve(rel);
    // Limited to the files listed, and to the rows the table's filter keeps (both when both are given).
    let only = Array.isArray(params.files) ? new Set(params.files as string[]) : null;
    if (params.where) {
      const kept = (await tableOf(svc, rel)).files(params.where);
      only = new Set(only ? kept.filter((f) => only!.has(f)) : kept);
    }
    const { rolloutFiles } = await import("../../runs/run-dir");
    const files = svc
      .readableRollouts(runDir, rolloutFiles)
      .map((abs) => ({ abs, rel: path.posix.join(rel, "rollouts", path.basename(abs)) }))
      .filter((f) => !only || only.has(f.rel));
    return svc.search.search(files, String(params.query), Number(params.limit ?? 100));
  },
  async run(svc, params) {
    // The rows stay here: the table asks for the page it shows.
    const { rollouts: _rows, ...dashboard } = await dashboardOf(svc, String(params.dir));
    return dashboard;
  },
  rollouts: async (svc, params) => (await dashboardOf(svc, String(params.dir))).rollouts,
  rolloutPage: async (svc, params) => (await tableOf(svc, params.dir)).page(params),
};
