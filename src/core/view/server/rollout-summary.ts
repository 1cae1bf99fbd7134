import path from "node:path";
import * as z from "zod/mini";
import "../../schema/zod-mini";
import { type ReportRollout, reportRolloutOf } from "../../report/report-rollout";
import { INFRA_STATUS } from "../../runs/summarize";
import { EndEvent, RewardComponent, type StartEvent, Usage } from "../../schema/trajectory";
import { RolloutRow } from "../protocol/rollouts";
import { TrajectoryIndex } from "./trajectory-index";

/**
 * What the run dashboard takes from one rollout file: its table row (without the served path),
 * the readiness report's view of it, and when the policy was answering it (the utilisation chart).
 * Made once per version of the file and cached (summary-cache.ts): the row's problem count, the
 * report's observation counts and the policy's intervals come from every line, so a summary made
 * from the start and end events alone would show a run's unreadable lines, truncations and
 * utilisation wrong; a cached one is right and reads nothing.
 */
export const RolloutSummary = z.object({
  row: z.omit(RolloutRow, { file: true }),
  /** Null without a start event (the report skips such a rollout: it says nothing). */
  report: z.nullable(
    z.object({
      task: z.string(),
      sample: z.number(),
      status: z.string(),
      infra: z.boolean(),
      reward: z.nullable(z.number()),
      reason: z.optional(z.string()),
      components: z.array(RewardComponent),
      turns: z.nullable(z.number()),
      usage: z.nullable(Usage),
      timings: z.nullable(EndEvent.shape.timings),
      observations: z.number(),
      observationsTruncated: z.number(),
    }),
  ),
  /** The policy's busy intervals, flat: start, end, start, end… (each assistant message's [t - latency, t]). */
  policy: z.array(z.number()),
});
export type RolloutSummary = z.infer<typeof RolloutSummary>;

/** The start event's settings as flat pairs, nested objects as dotted keys (values as text). */
export function startMeta(start: StartEvent): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (prefix: string, v: unknown, depth: number) => {
    if (v === undefined || v === null || out.length >= 200) return;
    if (typeof v === "object" && !Array.isArray(v) && depth < 4) {
      for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x, depth + 1);
    } else out.push([prefix, typeof v === "string" ? v : JSON.stringify(v)]);
  };
  walk(
    "",
    {
      env: start.env,
      task: { id: start.task.id },
      policy: start.policy,
      sample: start.sample,
      seed: start.seed,
      sandbox: start.sandbox,
      forked_from: start.forked_from?.rollout_id,
    },
    0,
  );
  return out;
}

/** One table row from an indexed rollout file (`rel`: its path as served). */
export function rolloutRow(file: string, rel: string, idx: TrajectoryIndex): RolloutRow {
  const m = idx.meta(rel);
  const start = m.start?.type === "start" ? m.start : null;
  const end = m.end?.type === "end" ? m.end : null;
  const reward = m.reward?.type === "reward" ? m.reward.total : (end?.reward ?? null);
  return {
    file: rel,
    id: start?.rollout_id ?? path.basename(file, ".jsonl"),
    task: start?.task.id ?? null,
    sample: start?.sample ?? null,
    // Shown as the run summary counts it: an error the infrastructure caused is infra_error, never a score.
    status: end?.status === "error" && m.infra ? INFRA_STATUS : (end?.status ?? "running"),
    reward,
    turns: end?.turns ?? null,
    duration_ms: end?.timings.total_ms ?? null,
    tokens: end ? end.usage.prompt_tokens + end.usage.completion_tokens : null,
    started: start?.t ?? null,
    ended: end?.t ?? null,
    problems: m.problems.slice(0, 20).map((p) => `line ${p.line}: ${p.message}`),
    problemCount: m.problemCount,
    meta: start ? startMeta(start) : [],
  };
}

/**
 * One rollout as the readiness report reads it, from its index: the index parsed every line once
 * already, so the report does not read the run's files a second time. The same builder as
 * `rlenv report`'s (reportRolloutOf), so the dashboard's readiness cards and the report agree.
 * Null without a start event.
 */
export function reportRollout(idx: TrajectoryIndex): ReportRollout | null {
  const m = idx.meta("");
  return reportRolloutOf({
    start: m.start?.type === "start" ? m.start : null,
    end: m.end?.type === "end" ? m.end : null,
    reward: m.reward?.type === "reward" ? m.reward : null,
    infraError: m.infra,
    observations: idx.observations,
    observationsTruncated: idx.observationsTruncated,
  });
}

/** The summary of an indexed file (every line read). */
export function summaryOf(file: string, idx: TrajectoryIndex): RolloutSummary {
  const { file: _served, ...row } = rolloutRow(file, "", idx);
  const report = reportRollout(idx);
  const policy: number[] = [];
  for (const iv of idx.policyIntervals) policy.push(iv.start, iv.end);
  // A reason left undefined is no key: the summary goes through JSON (the cache) and comes back equal.
  if (report && report.reason === undefined) delete report.reason;
  return { row, report: report && { ...report, components: [...report.components] }, policy };
}

/**
 * Reads a rollout file whole and summarises it. The index is the viewer's own (the same parse,
 * problems and torn-line rules as the trajectory view) but is not kept: a 10,000-rollout run's
 * line offsets are no use to its dashboard.
 */
export async function summariseFile(file: string): Promise<RolloutSummary> {
  return summaryOf(file, await TrajectoryIndex.open(file));
}

/** The report's rollout back from a summary (the same object readReportRollouts gives). */
export function summaryReport(s: RolloutSummary): ReportRollout | null {
  return s.report;
}
