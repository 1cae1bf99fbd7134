import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { readConcurrencyDecisions, readinessOf } from "../../report/run-report";
import type { ReportRollout } from "../../report/report-rollout";
import { CONCURRENCY_FILE } from "../../rollout/concurrency-controller";
import { rolloutFiles } from "../../runs/run-dir";
import { shownRecord } from "../../runs/run-state";
import { RunRecord, RunSummary } from "../../schema/run";
import type { Dashboard, DashboardWithRows, RolloutRow } from "../protocol/dashboard";
import { histogram, type Interval, perTask, statusCounts, utilisationSeries } from "../model/dashboard";
import type { RolloutSummary } from "./rollout-summary";
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
export { reportRollout, rolloutRow, startMeta } from "./rollout-summary";

/** The table's rows and what the aggregates need, from each served file's summary. */
function rowsOf(served: string[], summarised: RolloutSummary[], relDir: string, interrupted: boolean) {
  const rows: RolloutRow[] = [];
  const report: ReportRollout[] = [];
  const metaKeys = new Set<string>();
  const policy: Interval[] = [];
  const spans: Interval[] = [];
  for (const [i, file] of served.entries()) {
    const s = summarised[i]!;
    // A copy: the summary is cached, and a run's interruption is no part of it.
    const row: RolloutRow = { ...s.row, file: path.posix.join(relDir, "rollouts", path.basename(file)) };
    if (interrupted && row.status === "running") row.status = "interrupted";
    rows.push(row);
    if (s.report) report.push(s.report);
    for (const [k] of row.meta) metaKeys.add(k);
    // Loops, not spreads: a rollout may hold hundreds of thousands of intervals (a spread is one call's arguments).
    let lastEnd = row.started ?? Number.NEGATIVE_INFINITY;
    for (let p = 0; p + 1 < s.policy.length; p += 2) {
      const iv = { start: s.policy[p]!, end: s.policy[p + 1]! };
      policy.push(iv);
      if (iv.end > lastEnd) lastEnd = iv.end;
    }
    if (row.started !== null) spans.push({ start: row.started, end: row.ended ?? lastEnd });
  }
  return { rows, report, metaKeys, policy, spans };
}

/**
 * The dashboard of a run folder: its record, summary and a row per rollout, with derived charts.
 * `summaries` gives each rollout file's summary (cached by the view service: see SummaryCache).
 */
export async function runDashboard(
  runDir: string,
  relDir: string,
  summaries: (files: string[]) => Promise<RolloutSummary[]>,
  readable: (file: string) => boolean = () => true,
  /** The run's rollout files known readable in bulk (ViewService.readableRollouts); the others are checked one by one. */
  readableFiles?: (runDir: string) => string[],
  /** Given the rows as soon as they are made, before the aggregates (the table's first page need not wait for those). */
  onRows?: (rows: RolloutRow[]) => void,
): Promise<DashboardWithRows> {
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
  const files = confined("rollouts") ? rolloutFiles(runDir) : [];
  const readableNow = new Set(readableFiles ? readableFiles(runDir) : []);
  const served = files.filter((file) => readableNow.has(file) || confined(path.join("rollouts", path.basename(file))));
  const { rows, report, metaKeys, policy, spans } = rowsOf(served, await summaries(served), relDir, record?.status === "interrupted");
  if (onRows) {
    onRows(rows);
    // A turn of the event loop: a page waiting for the rows is answered before the aggregates are computed.
    await new Promise<void>((resolve) => setImmediate(resolve));
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
    rolloutCount: rows.length,
    metaKeys: [...metaKeys].sort(),
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
