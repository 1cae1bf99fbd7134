import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { ATTEMPTS_DIR, endedOnInfra, readRunAsWritten, ROLLOUTS_DIR } from "../runs/run-dir";
import { runOwnerGone } from "../runs/run-state";
import { readTrajectory, trimTornLine } from "../runs/trajectory-reader";
import type { RunRecord } from "../schema/run";
import type { RolloutResult } from "./run-rollout";

/** What a resumed run starts from: the rollouts it keeps, and the tries set aside for the ones it runs again. */
export interface ResumePlan {
  record: RunRecord;
  /** Rollout id → the finished rollout, read back from its trajectory. */
  kept: Map<string, RolloutResult>;
  /** Rollout id → its tries moved under attempts/ (relative to the run folder), for the new try's start event. */
  setAside: Map<string, Array<{ file: string; reason: string }>>;
}

/**
 * The run folder's record, if it may be resumed: not a run whose owner still runs it, and
 * not one that ended whole. Throws with the reason otherwise.
 */
export function resumableRecord(runDir: string): RunRecord {
  if (!existsSync(path.join(runDir, "run.json"))) throw new Error(`${runDir}: not a run folder (no run.json)`);
  const { record } = readRunAsWritten(runDir);
  if (record.status === "running" && !runOwnerGone(record)) {
    const o = record.owner;
    throw new Error(
      `run ${record.id} is still running${o ? ` (pid ${o.pid} on ${o.host})` : " (it recorded no owner process, so it cannot be told apart from a live one)"}; stop it first`,
    );
  }
  if (record.status === "failed") throw new Error(`run ${record.id} failed before its rollouts started; start a new run`);
  return record;
}

/**
 * Sorts a run folder's trajectories for a resume. Kept: those that ended with the agent's
 * outcome (completed, truncated, timeout, or an error of the task's). Run again: the missing
 * ones, and those that say nothing of the agent: no `end` (the process died mid-rollout),
 * `cancelled` (stopped from outside) or an infrastructure failure. Their files move under
 * attempts/ as interrupted tries, kept for the record and never counted.
 */
export function planResume(runDir: string, record: RunRecord, ids: readonly string[]): ResumePlan {
  const kept = new Map<string, RolloutResult>();
  const setAside = new Map<string, Array<{ file: string; reason: string }>>();
  for (const id of ids) {
    const file = path.join(runDir, ROLLOUTS_DIR, `${id}.jsonl`);
    if (!existsSync(file)) continue;
    const { events } = readTrajectory(file);
    const start = events.find((e) => e.type === "start");
    const end = events.findLast((e) => e.type === "end");
    if (start?.type === "start" && end?.type === "end" && end.status !== "cancelled" && !endedOnInfra(events)) {
      const reward = events.findLast((e) => e.type === "reward");
      kept.set(id, {
        rolloutId: id,
        file,
        task: start.task.id,
        sample: start.sample,
        status: end.status,
        ...(end.reason ? { reason: end.reason } : {}),
        reward: end.reward,
        ...(reward?.type === "reward" ? { components: reward.components } : {}),
        infra: false,
        answer: undefined,
        turns: end.turns,
        usage: end.usage,
        timings: end.timings,
        ...(end.sandbox_seconds !== undefined ? { sandboxSeconds: end.sandbox_seconds } : {}),
        ...(end.judge ? { judge: end.judge } : {}),
        ...(start.reward_hash ? { rewardHash: start.reward_hash } : {}),
      });
      continue;
    }
    const why =
      end?.type !== "end"
        ? "interrupted: the run's process ended before the rollout did"
        : end.status === "cancelled"
          ? "cancelled"
          : (end.reason ?? "infrastructure failure");
    const earlier = start?.type === "start" ? (start.previous_attempts ?? []) : [];
    let n = earlier.length + 1;
    while (existsSync(path.join(runDir, ATTEMPTS_DIR, `${id}.interrupted${n}.jsonl`))) n++;
    const aside = path.posix.join(ATTEMPTS_DIR, `${id}.interrupted${n}.jsonl`);
    mkdirSync(path.join(runDir, ATTEMPTS_DIR), { recursive: true });
    // A try cut off mid-line (the process killed, the disk full) keeps its whole lines only.
    trimTornLine(file);
    renameSync(file, path.join(runDir, aside));
    setAside.set(id, [...earlier, { file: aside, reason: why }]);
  }
  return { record, kept, setAside };
}
