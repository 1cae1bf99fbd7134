import type { JobRecord } from "../api";
import { type MergeMemo, mergeRun, newMergeMemo } from "./merge";
import type { RolloutFileState } from "./rollout-watch";

/**
 * Keeps each job's merged run folder (merge.ts) up to date: on demand while the job runs,
 * reusing what this process learnt of the folder (a MergeMemo per unfinished job), and once
 * for good when it ends, from the rollouts its watcher saw.
 */
export class JobMerger {
  private readonly memos = new Map<string, MergeMemo>();
  /** A finished job's rollouts as its watcher saw them, handed to the final merge. */
  private readonly finalView = new Map<string, RolloutFileState[]>();

  constructor(private readonly version: string) {}

  /** Brings a running job's folder up to date; returns the rollout files in it that have ended for good. */
  update(job: JobRecord, jobDir: string, seen?: RolloutFileState[]): string[] {
    return mergeRun(job, jobDir, this.version, false, seen, this.memo(job.id)).finished;
  }

  /** What the job's watcher saw last, kept for its final merge. */
  keepFinalView(id: string, seen: RolloutFileState[]): void {
    this.finalView.set(id, seen);
  }

  /** The last merge of an ended job; forgets what was kept for it, whatever happens. */
  final(job: JobRecord, jobDir: string): void {
    try {
      mergeRun(job, jobDir, this.version, true, this.finalView.get(job.id), this.memo(job.id));
    } finally {
      this.finalView.delete(job.id);
      this.memos.delete(job.id);
    }
  }

  private memo(id: string): MergeMemo {
    let memo = this.memos.get(id);
    if (!memo) {
      memo = newMergeMemo();
      this.memos.set(id, memo);
    }
    return memo;
  }
}
