import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TrajectoryEvent } from "../schema/trajectory";
import { type RunRecord, RunRecord as RunRecordSchema, type RunSummary, RunSummary as RunSummarySchema } from "../schema/run";
import { shownRecord } from "./run-state";
import { type RolloutOutcome, summarize } from "./summarize";
import { readTrajectory } from "./trajectory-reader";

export const RUN_FILE = "run.json";
export const SUMMARY_FILE = "summary.json";
export const ROLLOUTS_DIR = "rollouts";
/** Tries of a rollout that the infrastructure failed, kept apart from the run's rollouts. */
export const ATTEMPTS_DIR = "attempts";

/** Where try `n` of a rollout is kept once it failed, relative to the run folder. */
export function attemptFile(rolloutId: string, n: number): string {
  return path.posix.join(ATTEMPTS_DIR, `${rolloutId}.try${n}.jsonl`);
}

/** Write JSON through a temporary file and a rename, so a reader never sees half a file. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, file);
}

export interface RunInfo {
  dir: string;
  record: RunRecord;
  summary: RunSummary | null;
}

/**
 * A run folder: its record, and its summary when the run got that far. A run whose owner is
 * gone shows as `interrupted` (see run-state.ts), with a summary of the rollouts that ended.
 * Throws naming the folder when it is not a run, and the file when run.json is bad.
 */
export function readRun(dir: string): RunInfo {
  const info = readRunAsWritten(dir);
  const record = shownRecord(info.record);
  if (record.status !== "interrupted" || info.summary) return { ...info, record };
  return { ...info, record, summary: summarize(record.id, readOutcomes(dir), { k: record.config.k }) };
}

/** A run folder exactly as its files say (a killed run still says `running`). */
export function readRunAsWritten(dir: string): RunInfo {
  const file = path.join(dir, RUN_FILE);
  if (!existsSync(dir)) throw new Error(`${dir}: no such folder`);
  if (!existsSync(file)) throw new Error(`${dir}: not a run folder (it has no ${RUN_FILE}; runs are the folders under runs/)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8")) as unknown;
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  const rec = RunRecordSchema.safeParse(raw);
  if (!rec.success) throw new Error(`${file}: ${rec.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const sfile = path.join(dir, SUMMARY_FILE);
  let summary: RunSummary | null = null;
  if (existsSync(sfile)) {
    const s = RunSummarySchema.safeParse(JSON.parse(readFileSync(sfile, "utf8")) as unknown);
    summary = s.success ? s.data : null;
  }
  return { dir, record: rec.data, summary };
}

/** Every run under a runs folder, newest first; folders that are not runs are skipped. */
export function listRuns(runsDir: string): RunInfo[] {
  if (!existsSync(runsDir)) return [];
  const out: RunInfo[] = [];
  for (const name of readdirSync(runsDir)) {
    const dir = path.join(runsDir, name);
    if (!statSync(dir).isDirectory() || !existsSync(path.join(dir, RUN_FILE))) continue;
    try {
      out.push(readRun(dir));
    } catch {
      // A run.json being written or damaged: the run is skipped here, readRun reports it.
    }
  }
  return out.sort((a, b) => (a.record.created < b.record.created ? 1 : a.record.created > b.record.created ? -1 : 0));
}

/** The trajectory files of a run, sorted by name. */
export function rolloutFiles(runDir: string): string[] {
  const dir = path.join(runDir, ROLLOUTS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .map((n) => path.join(dir, n));
}

/** An ended trajectory whose failure was the machinery's (sandbox lost, policy server down): not a score of the agent. */
export function endedOnInfra(events: readonly TrajectoryEvent[]): boolean {
  const end = events.findLast((e) => e.type === "end");
  return end?.type === "end" && end.status === "error" && events.some((e) => e.type === "error" && e.infra);
}

/** Outcomes read back from the trajectories; one without an end event is `interrupted`. */
export function readOutcomes(runDir: string): RolloutOutcome[] {
  return rolloutFiles(runDir).flatMap((f) => {
    const { events } = readTrajectory(f);
    const start = events.find((e) => e.type === "start");
    if (start?.type !== "start") return [];
    const end = events.findLast((e) => e.type === "end");
    const reward = events.findLast((e) => e.type === "reward");
    return [
      {
        task: start.task.id,
        sample: start.sample,
        status: end?.type === "end" ? end.status : "interrupted",
        ...(end?.type === "end" && endedOnInfra(events) ? { infra: true } : {}),
        reward: end?.type === "end" ? end.reward : null,
        ...(end?.type === "end" && end.reason ? { reason: end.reason } : {}),
        ...(reward?.type === "reward" ? { components: reward.components } : {}),
        ...(reward?.type === "reward" && reward.hack_signals
          ? { hackSignals: [...new Set(reward.hack_signals.map((s) => s.signal))], hackAction: reward.hack_action }
          : {}),
        ...(end?.type === "end" && end.tokens ? { driftTurns: end.tokens.drift_turns } : {}),
        ...(end?.type === "end" ? { usage: end.usage, sandboxSeconds: end.sandbox_seconds, judge: end.judge } : {}),
        ...(start.reward_hash ? { rewardHash: start.reward_hash } : {}),
      },
    ];
  });
}

/** Recompute a run's summary from its trajectories (after a crash, or for a pulled remote run). */
export function summarizeRunDir(runDir: string): RunSummary {
  const { record } = readRunAsWritten(runDir);
  return summarize(record.id, readOutcomes(runDir), { k: record.config.k });
}
