import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { CONCURRENCY_FILE } from "../rollout/concurrency-controller";
import { readRun } from "../runs/run-dir";
import { type Band, ConcurrencyDecision, type ReadinessReport } from "../schema/report";
import type { RunRecord, RunSummary } from "../schema/run";
import { readReportRollouts } from "./read-rollouts";
import type { ReportRollout } from "./report-rollout";
import { buildReadiness } from "./readiness";

/** The decisions a run recorded; lines that are not decisions (a torn last line) are skipped. */
export function readConcurrencyDecisions(runDir: string, file = path.join(runDir, CONCURRENCY_FILE)): ConcurrencyDecision[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.trim() === "") return [];
      try {
        const d = ConcurrencyDecision.safeParse(JSON.parse(line));
        return d.success ? [d.data] : [];
      } catch {
        return [];
      }
    });
}

/** The readiness report of one run folder, from its files alone (run.json, summary.json, rollouts/). */
export function reportForRun(runDir: string): ReadinessReport {
  const dir = path.resolve(runDir);
  const { record, summary } = readRun(dir);
  return readinessOf(dir, record, summary, readReportRollouts(dir), readConcurrencyDecisions(dir));
}

/** The report from a run's parts already read (the dashboard reads only the files it may serve). */
export function readinessOf(
  dir: string,
  record: RunRecord,
  summary: RunSummary | null,
  rollouts: readonly ReportRollout[],
  decisions: ConcurrencyDecision[],
): ReadinessReport {
  const policy = record.config.policy;
  return buildReadiness(rollouts, {
    runId: record.id,
    dir,
    env: { name: record.env.name, hash: record.env.hash, ...(record.env.reward_hash ? { reward_hash: record.env.reward_hash } : {}) },
    policy: policy.model ? `${policy.kind}:${policy.model}` : policy.kind,
    utilisation: summary?.utilisation ?? null,
    concurrency: decisions,
  });
}

/** The tasks of a band, sorted: what `--emit-tasks FILE --band learnable` writes, one id a line. */
export function tasksInBand(report: ReadinessReport, band: Band): string[] {
  return report.tasks.filter((t) => t.n > 0 && t.band === band).map((t) => t.task);
}
