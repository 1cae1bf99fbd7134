import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { readConcurrencyDecisions, readinessOf } from "../../report/run-report";
import type { ReportRollout } from "../../report/read-rollouts";
import { CONCURRENCY_FILE } from "../../rollout/concurrency-controller";
import { rolloutFiles } from "../../runs/run-dir";
import { shownRecord } from "../../runs/run-state";
import { RunRecord, RunSummary } from "../../schema/run";
import type { EndEvent, RewardEvent, StartEvent } from "../../schema/trajectory";
import type { Dashboard, RolloutRow } from "../protocol/dashboard";
import { histogram, type Interval, perTask, statusCounts, utilisationSeries } from "../model/dashboard";
import type { TrajectoryIndex } from "./trajectory-index";
import { INFRA_STATUS } from "../../runs/summarize";
import { findRunAudit } from "./audit-report";
import { CALIBRATION_FILE, CalibrationReport } from "../../schema/calibration";

function readJson<T>(
  file: string,
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  problems: string[],
): T | null {
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    problems.push(`${file}: not JSON: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  problems.push(`${file}: ${issue ? `${issue.path.map(String).join(".")}: ${issue.message}` : "invalid"}`);
  return null;
}

/** The view service lists a run's rollouts the way every other reader does. */
export { rolloutFiles };

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

/** One table row from an indexed rollout file. */
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
 * One rollout as the readiness report reads it (readReportRollouts' fields), from its index: the
 * index parsed every line once already, so the report does not read the run's files a second time
 * (on a 10,000-rollout run that second read was most of the dashboard's time). Null without a start event.
 */
export function reportRollout(idx: TrajectoryIndex): ReportRollout | null {
  const m = idx.meta("");
  const start = m.start?.type === "start" ? (m.start as StartEvent) : null;
  if (!start) return null;
  const end = m.end?.type === "end" ? (m.end as EndEvent) : null;
  const reward = m.reward?.type === "reward" ? (m.reward as RewardEvent) : null;
  return {
    task: start.task.id,
    sample: start.sample,
    status: end ? end.status : "interrupted",
    infra: end !== null && end.status === "error" && m.infra,
    reward: end ? end.reward : null,
    reason: end?.reason,
    components: reward ? reward.components : [],
    turns: end ? end.turns : null,
    usage: end ? end.usage : null,
    timings: end ? end.timings : null,
    observations: idx.observations,
    observationsTruncated: idx.observationsTruncated,
  };
}

/** Files indexed at once: their reads overlap while each one's lines are parsed. */
const INDEX_AHEAD = 16;

/** The indexes of `files`, in their order, up to INDEX_AHEAD opened at once. */
async function indexAll(files: string[], index: (file: string) => Promise<TrajectoryIndex>): Promise<TrajectoryIndex[]> {
  const out: TrajectoryIndex[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      out[i] = await index(files[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(INDEX_AHEAD, files.length) }, worker));
  return out;
}

/** The dashboard of a run folder: its record, summary and a row per rollout, with derived charts. */
export async function runDashboard(
  runDir: string,
  relDir: string,
  index: (file: string) => Promise<TrajectoryIndex>,
  readable: (file: string) => boolean = () => true,
  /** The run's rollout files known readable in bulk (ViewService.readableRollouts); the others are checked one by one. */
  readableFiles?: (runDir: string) => string[],
): Promise<Dashboard> {
  const problems: string[] = [];
  const confined = (name: string) => {
    const file = path.join(runDir, name);
    if (readable(file)) return file;
    problems.push(`${path.posix.join(relDir, name)}: links outside the served folder; not read`);
    return null;
  };
  const runJson = confined("run.json");
  const summaryJson = confined("summary.json");
  // A run whose process is gone shows as interrupted, and so do its rollouts that never ended.
  const written = runJson ? readJson(runJson, RunRecord, problems) : null;
  const record = written ? shownRecord(written) : null;
  const summary = summaryJson ? readJson(summaryJson, RunSummary, problems) : null;
  const rows: RolloutRow[] = [];
  const policy: Interval[] = [];
  const spans: Interval[] = [];
  const files = confined("rollouts") ? rolloutFiles(runDir) : [];
  const readableNow = new Set(readableFiles ? readableFiles(runDir) : []);
  const served = files.filter((file) => readableNow.has(file) || confined(path.join("rollouts", path.basename(file))));
  const indexes = await indexAll(served, index);
  const report: ReportRollout[] = [];
  for (const [i, file] of served.entries()) {
    const idx = indexes[i]!;
    const rel = path.posix.join(relDir, "rollouts", path.basename(file));
    const row = rolloutRow(file, rel, idx);
    if (record?.status === "interrupted" && row.status === "running") row.status = "interrupted";
    rows.push(row);
    const r = reportRollout(idx);
    if (r) report.push(r);
    // Loops, not spreads: a rollout may hold hundreds of thousands of intervals (a spread is one call's arguments).
    let lastEnd = row.started ?? Number.NEGATIVE_INFINITY;
    for (const iv of idx.policyIntervals) {
      policy.push(iv);
      if (iv.end > lastEnd) lastEnd = iv.end;
    }
    if (row.started !== null) spans.push({ start: row.started, end: row.ended ?? lastEnd });
  }
  const rewards = rows.flatMap((r) => (r.reward === null ? [] : [r.reward]));
  const durations = rows.flatMap((r) => (r.duration_ms === null ? [] : [r.duration_ms / 1000]));
  const maxDuration = durations.reduce((m, d) => Math.max(m, d), 1e-9);
  const { points, policyBusy } = utilisationSeries(policy, spans);
  let readiness: Dashboard["readiness"] = null;
  if (written) {
    try {
      const decisions = existsSync(path.join(runDir, CONCURRENCY_FILE)) ? confined(CONCURRENCY_FILE) : null;
      readiness = readinessOf(relDir, written, summary, report, decisions ? readConcurrencyDecisions(runDir, decisions) : []);
    } catch (err) {
      problems.push(`readiness: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return {
    dir: relDir,
    record,
    summary,
    problems,
    rollouts: rows,
    rewardHistogram: histogram(rewards, 10, 0, 1),
    durationHistogram: histogram(durations, 12, 0, maxDuration || 1),
    statuses: statusCounts(rows),
    perTask: perTask(rows),
    meanReward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
    utilisation: points,
    policyBusy,
    readiness,
    audit: findRunAudit(runDir, written?.env.name ?? null, problems, written?.env.hash || null),
    calibration: calibrationOf(runDir, relDir, problems),
  };
}

/** The run's calibration report, if it is one; rollout paths made relative to the served root, as the table's are. */
function calibrationOf(runDir: string, relDir: string, problems: string[]): CalibrationReport | null {
  const report = readJson(path.join(runDir, CALIBRATION_FILE), CalibrationReport, problems);
  if (!report) return null;
  const served = (rel: string) => path.posix.join(relDir, rel.split(path.sep).join("/"));
  return {
    ...report,
    disagreements: report.disagreements.map((d) => ({ ...d, rollout: served(d.rollout) })),
    not_graded: report.not_graded.map((n) => (n.rollout ? { ...n, rollout: served(n.rollout) } : n)),
  };
}
