import { z } from "zod";
import { CalibrationReport } from "../../schema/calibration";
import { ReadinessReport } from "../../schema/report";
import { RunAudit } from "./audit";
import { RolloutRow } from "./rollouts";
import { RunRecord, RunSummary } from "../../schema/run";

/** Messages of the run dashboard app. */

export { RolloutRow };

export const Bin = z.object({ from: z.number(), to: z.number(), count: z.number().int() });
export type Bin = z.infer<typeof Bin>;

export const TaskPass = z.object({
  task: z.string(),
  n: z.number().int(),
  passed: z.number().int(),
  mean_reward: z.number().nullable(),
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
  record: RunRecord.nullable(),
  summary: RunSummary.nullable(),
  problems: z.array(z.string()),
  /** How many rollouts the run has (the table's rows, before any filter). */
  rolloutCount: z.number().int(),
  /** The keys of the rollouts' metadata (`policy.model`, `seed`…), sorted: what the metadata filter offers. */
  metaKeys: z.array(z.string()),
  rewardHistogram: z.array(Bin),
  durationHistogram: z.array(Bin),
  /** Rollouts per status, sorted by status (pairs, not an object: names never become keys). */
  statuses: z.array(z.tuple([z.string(), z.number().int()])),
  perTask: z.array(TaskPass),
  meanReward: z.number().nullable(),
  utilisation: z.array(UtilisationPoint),
  /** Fraction of wall time with at least one policy request in flight. */
  policyBusy: z.number().nullable(),
  /** `rlenv report` of the run (null while it has no run.json); its concurrency decisions also mark the utilisation chart. */
  readiness: ReadinessReport.nullable().default(null),
  /** The audit of the run's environment, when one is found beside the run (see runAuditCandidates): a verdict per task. */
  audit: RunAudit.nullable().default(null),
  /** `rlenv calibrate`'s report when the run is a calibration (calibration.json); its disagreements' rollouts relative to the served root. */
  calibration: CalibrationReport.nullable().default(null),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** One event that holds every word of a search, linking to its step. */
export const SearchHit = z.object({
  file: z.string(),
  row: z.number().int(),
  line: z.number().int(),
  kind: z.enum(["message", "tool_call", "observation"]),
  snippet: z.string(),
  /** Where the words are in the snippet. */
  ranges: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResults = z.object({ hits: z.array(SearchHit), total: z.number().int(), files: z.number().int() });
export type SearchResults = z.infer<typeof SearchResults>;

/** The dashboard with its rows, as the server builds it (the rows stay on the server's side: see Dashboard). */
export type DashboardWithRows = Dashboard & { rollouts: RolloutRow[] };

/** The table's sortable columns (rollout-order.ts's RolloutKey). */
export const RolloutKey = z.enum(["id", "task", "sample", "status", "reward", "turns", "duration_ms", "tokens"]);

const Range = z.object({ min: z.number().nullable().optional(), max: z.number().nullable().optional() });

/** What the table's filters keep (rollout-filter.ts's RolloutFilter): every part given must hold. */
export const RolloutWhere = z.object({
  text: z.string().max(1000).optional(),
  status: z.string().max(200).optional(),
  reward: Range.optional(),
  /** Seconds. */
  duration: Range.optional(),
  tokens: Range.optional(),
  /** `key=value` or `key~text` conditions on the rollouts' metadata. */
  meta: z.string().max(10_000).optional(),
});
export type RolloutWhere = z.infer<typeof RolloutWhere>;

/** Rows a page may hold: a screenful and its margins, never the run. */
export const MAX_PAGE_ROWS = 500;

/** Rows [from, from + count) of the run's rollouts filtered by `where` and sorted by `sort` (missing values last). */
export const RolloutQuery = z.object({
  dir: z.string(),
  sort: RolloutKey.default("id"),
  desc: z.boolean().default(false),
  where: RolloutWhere.default({}),
  from: z.number().int().nonnegative(),
  count: z.number().int().nonnegative().max(MAX_PAGE_ROWS),
});
export type RolloutQuery = z.input<typeof RolloutQuery>;

export const RolloutPage = z.object({
  /** Rollouts in the run. */
  total: z.number().int(),
  /** Rollouts the filter keeps. */
  matched: z.number().int(),
  from: z.number().int(),
  rows: z.array(RolloutRow),
  /** Which build of the run's table answered (a live run's grows): rows of two builds are not mixed. */
  version: z.number().int(),
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
      query: z.string().max(1000),
      files: z.array(z.string()).optional(),
      /** Only the rollouts the table's filter keeps (resolved on the server's side, over every rollout). */
      where: RolloutWhere.optional(),
      limit: z.number().int().positive().max(1000).default(100),
    }),
    result: SearchResults,
  },
} as const;
