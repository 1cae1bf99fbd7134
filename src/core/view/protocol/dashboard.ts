import * as z from "zod/mini";
import "../../schema/zod-mini";
import { CalibrationReport } from "../../schema/calibration";
import { ReadinessReport } from "../../schema/report";
import { RunAudit } from "./run-audit";
import { RolloutRow } from "./rollouts";
import { RunRecord, RunSummary } from "../../schema/run";

/**
 * Messages of the run dashboard app, written with zod/mini (see schema/zod-mini.ts) as are the schemas
 * they embed (the run record and summary, the readiness and calibration reports, the audit verdicts):
 * the host and the webview parse them with the same schemas, and the dashboard's bundle carries no classic zod.
 */

const int = () => z.number().check(z.int());

export { RolloutRow };

export const Bin = z.object({ from: z.number(), to: z.number(), count: int() });
export type Bin = z.infer<typeof Bin>;

export const TaskPass = z.object({
  task: z.string(),
  n: int(),
  passed: int(),
  mean_reward: z.nullable(z.number()),
  pass_at_k: z.record(z.string(), z.number()),
});
export type TaskPass = z.infer<typeof TaskPass>;

export const UtilisationPoint = z.object({ t: z.number(), policy_in_flight: z.number(), rollouts_running: z.number() });
export type UtilisationPoint = z.infer<typeof UtilisationPoint>;

/**
 * The run dashboard as `run` sends it: the run's record and every aggregate (histograms, statuses,
 * pass@k, utilisation, readiness), each over every rollout, but not the rollouts' rows: the table
 * asks for the rows it shows (`rolloutPage`), so opening a run of 10,000 rollouts sends a screenful.
 */
export const Dashboard = z.object({
  dir: z.string(),
  record: z.nullable(RunRecord),
  summary: z.nullable(RunSummary),
  problems: z.array(z.string()),
  /** How many rollouts the run has (the table's rows, before any filter). */
  rolloutCount: int(),
  /** The keys of the rollouts' metadata (`policy.model`, `seed`…), sorted: what the metadata filter offers. */
  metaKeys: z.array(z.string()),
  rewardHistogram: z.array(Bin),
  durationHistogram: z.array(Bin),
  /** Rollouts per status, sorted by status (pairs, not an object: names never become keys). */
  statuses: z.array(z.tuple([z.string(), int()])),
  perTask: z.array(TaskPass),
  meanReward: z.nullable(z.number()),
  utilisation: z.array(UtilisationPoint),
  /** Fraction of wall time with at least one policy request in flight. */
  policyBusy: z.nullable(z.number()),
  /** `rlenv report` of the run (null while it has no run.json); its concurrency decisions also mark the utilisation chart. */
  readiness: z._default(z.nullable(ReadinessReport), null),
  /** The audit of the run's environment, when one is found beside the run (see runAuditCandidates): a verdict per task. */
  audit: z._default(z.nullable(RunAudit), null),
  /** `rlenv calibrate`'s report when the run is a calibration (calibration.json); its disagreements' rollouts relative to the served root. */
  calibration: z._default(z.nullable(CalibrationReport), null),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** One event that holds every word of a search, linking to its step. */
export const SearchHit = z.object({
  file: z.string(),
  row: int(),
  line: int(),
  kind: z.enum(["message", "tool_call", "observation"]),
  snippet: z.string(),
  /** Where the words are in the snippet. */
  ranges: z.array(z.tuple([int(), int()])),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResults = z.object({ hits: z.array(SearchHit), total: int(), files: int() });
export type SearchResults = z.infer<typeof SearchResults>;

/** The dashboard with its rows, as the server builds it (the rows stay on the server's side: see Dashboard). */
export type DashboardWithRows = Dashboard & { rollouts: RolloutRow[] };

/** The table's sortable columns (rollout-order.ts's RolloutKey). */
export const RolloutKey = z.enum(["id", "task", "sample", "status", "reward", "turns", "duration_ms", "tokens"]);

const Range = z.object({ min: z.optional(z.nullable(z.number())), max: z.optional(z.nullable(z.number())) });

/** What the table's filters keep (rollout-filter.ts's RolloutFilter): every part given must hold. */
export const RolloutWhere = z.object({
  text: z.optional(z.string().check(z.maxLength(1000))),
  status: z.optional(z.string().check(z.maxLength(200))),
  reward: z.optional(Range),
  /** Seconds. */
  duration: z.optional(Range),
  tokens: z.optional(Range),
  /** `key=value` or `key~text` conditions on the rollouts' metadata. */
  meta: z.optional(z.string().check(z.maxLength(10_000))),
});
export type RolloutWhere = z.infer<typeof RolloutWhere>;

/** Rows a page may hold: a screenful and its margins, never the run. */
export const MAX_PAGE_ROWS = 500;

/** Rows [from, from + count) of the run's rollouts filtered by `where` and sorted by `sort` (missing values last). */
export const RolloutQuery = z.object({
  dir: z.string(),
  sort: z._default(RolloutKey, "id"),
  desc: z._default(z.boolean(), false),
  where: z._default(RolloutWhere, {}),
  from: int().check(z.nonnegative()),
  count: int().check(z.nonnegative(), z.lte(MAX_PAGE_ROWS)),
});
export type RolloutQuery = z.input<typeof RolloutQuery>;

export const RolloutPage = z.object({
  /** Rollouts in the run. */
  total: int(),
  /** Rollouts the filter keeps. */
  matched: int(),
  from: int(),
  rows: z.array(RolloutRow),
  /** Which build of the run's table answered (a live run's grows): rows of two builds are not mixed. */
  version: int(),
});
export type RolloutPage = z.infer<typeof RolloutPage>;

export const DashboardMethods = {
  run: { params: z.object({ dir: z.string() }), result: Dashboard },
  /** A page of the run's table, sorted and filtered on the server's side over every rollout. */
  rolloutPage: { params: RolloutQuery, result: RolloutPage },
  /** Full-text search over a run's messages, tool calls and observations; `files` limits it to some rollouts (the filtered table). */
  search: {
    params: z.object({
      dir: z.string(),
      query: z.string().check(z.maxLength(1000)),
      files: z.optional(z.array(z.string())),
      /** Only the rollouts the table's filter keeps (resolved on the server's side, over every rollout). */
      where: z.optional(RolloutWhere),
      limit: z._default(int().check(z.positive(), z.lte(1000)), 100),
    }),
    result: SearchResults,
  },
} as const;
