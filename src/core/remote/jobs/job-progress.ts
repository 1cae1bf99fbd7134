import path from "node:path";
import type { JobEventInput, JobRecord, WorkUnit } from "../api";
import { isFinished, RolloutWatcher } from "./rollout-watch";

/** What a running job's watcher reads and writes of the job manager. */
export interface JobWatchHost {
  job(): JobRecord | undefined;
  jobDir: string;
  /** Rollout ends seen by this process, for rollouts/s (trimmed here). */
  rolloutEnds: number[];
  emit(input: JobEventInput): void;
  save(job: JobRecord): void;
}

/** Follows the units' trajectories: rollout-end and progress events, the job's progress journalled. */
export function watchJobRollouts(host: JobWatchHost, reported: boolean): RolloutWatcher {
  const unitDir = (u: WorkUnit) => path.join(host.jobDir, u.runs_dir);
  let lastSave = 0;
  let lastProgress = 0;
  // Running totals: the watcher reports each rollout's end once, and only for units
  // whose output counts (keep "none" units are not watched), so adding up is exact.
  let done = 0;
  let sum = 0;
  let scored = 0;
  const watcher = new RolloutWatcher(
    () => (host.job()?.units ?? []).filter((u) => u.keep !== "none").map((u) => ({ id: u.id, dir: unitDir(u) })),
    (end) => {
      host.rolloutEnds.push(Date.now());
      if (host.rolloutEnds.length > 10_000) host.rolloutEnds.splice(0, 5_000);
      host.emit({ type: "rollout-end", ...end });
      const job = host.job();
      if (!job) return;
      if (isFinished(end.status)) {
        done += 1;
        if (end.reward !== null) {
          sum += end.reward;
          scored += 1;
        }
      }
      const progress = { done, total: job.progress.total, mean_reward: scored ? sum / scored : null };
      const elapsed = (Date.now() - Date.parse(job.started ?? job.created)) / 1000;
      job.progress = progress;
      // The journal gets progress at most once a second; events carry every step.
      if (Date.now() - lastSave > 1000) {
        lastSave = Date.now();
        host.save(job);
      }
      // Progress at most every 100 ms (rollout-end events carry each one), and always the last.
      if (Date.now() - lastProgress >= 100 || done === job.progress.total) {
        lastProgress = Date.now();
        host.emit({ type: "progress", ...progress, rate: elapsed > 0 ? done / elapsed : 0 });
      }
    },
    // An executor that reports its rollout ends leaves nothing to poll for.
    reported ? 0 : 50,
  );
  return watcher;
}
