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

export const Dashboard = z.object({
  dir: z.string(),
  record: RunRecord.nullable(),
  summary: RunSummary.nullable(),
  problems: z.array(z.string()),
  rollouts: z.array(RolloutRow),
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

/**
 * The dashboard as `run` sends it: every part checked on both sides except the rollout rows, which
 * the app checks itself a slice at a time (webviews' parseRowsInSlices): on 10,000 rollouts one
 * parse of them all was the page's longest task, and the host built the rows itself.
 */
export const DashboardReply = Dashboard.extend({ rollouts: z.array(z.unknown()) });
export type DashboardReply = z.infer<typeof DashboardReply>;

export const DashboardMethods = {
  run: { params: z.object({ dir: z.string() }), result: DashboardReply },
  /** Full-text search over a run's messages, tool calls and observations; `files` limits it to some rollouts (the filtered table). */
  search: {
    params: z.object({
      dir: z.string(),
      query: z.string().max(1000),
      files: z.array(z.string()).optional(),
      limit: z.number().int().positive().max(1000).default(100),
    }),
    result: SearchResults,
  },
} as const;
