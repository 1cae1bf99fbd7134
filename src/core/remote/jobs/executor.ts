import type { JobRecord, WorkUnit } from "../api";
import type { Observation } from "../../util/observations";
import type { PushedRolloutEnd } from "../progress-line";

/**
 * What an executor gets to run one job. The job manager owns the record; executors
 * change it only through `update`, which persists it in the journal at once.
 */
export interface ExecutionContext {
  readonly jobId: string;
  readonly jobDir: string;
  /** The unpacked environment folder (on a cluster: inside the shared folder). */
  readonly envDir: string;
  job(): JobRecord;
  update(mutate: (job: JobRecord) => void): void;
  log(line: string, unit?: string): void;
  /** Aborted on cancel (DELETE) and on runner shutdown. */
  readonly signal: AbortSignal;
  /** argv that starts the `rlenv` CLI (node + cli script). */
  readonly rlenvCommand: readonly string[];
  /** Where a unit's `rlenv run --runs` writes. */
  unitRunsDir(unit: WorkUnit): string;
  /** A rollout end the executor learnt from the unit's own process (see Executor.reportsRolloutEnds). */
  rolloutEnded(unit: string, end: PushedRolloutEnd): void;
  /** What the unit's process saw happen (rollout starts, sandbox starts, policy requests, error classes), for the runner's metrics. */
  observe?(o: Observation): void;
  /** Set by the job manager when it started a policy server for the job. */
  readonly policyBaseUrl?: string;
}

/**
 * Runs a job's work units somewhere: on this machine (`local`), as Slurm array tasks
 * (`slurm`), and next as a Kubernetes Indexed Job — each an implementation of this.
 */
export interface Executor {
  readonly kind: "local" | "slurm" | "kubernetes";
  /**
   * True when `execute` reports every rollout end of its units through
   * `ctx.rolloutEnded` as it happens: the job manager then does not poll the units'
   * trajectory files while they run (it still scans them once at the start and the end).
   */
  readonly reportsRolloutEnds: boolean;
  /** Splits a new job into units (one local unit, N shards…). */
  plan(job: JobRecord): WorkUnit[];
  /**
   * Runs every unit that is not done until all have ended, a unit failed past its
   * retries, or the signal aborts (then everything it started is stopped before it resolves).
   */
  execute(ctx: ExecutionContext): Promise<void>;
  /**
   * After the runner restarted under a job: deal with units the previous runner process
   * left `running` — end the stale processes, or re-adopt cluster jobs that live on.
   */
  recover(ctx: ExecutionContext): Promise<void>;
}

/**
 * The abort reason of a runner that is shutting down (a service restart, SIGTERM), as
 * opposed to a user's cancel: work that can outlive the runner (Slurm jobs) is left to
 * run and re-adopted by the next runner; local processes stop and their units are
 * interrupted, so the restarted runner plans what they had not finished.
 */
export const RUNNER_SHUTDOWN = "the runner is shutting down";

/** Whether the signal aborted because the runner is shutting down (not a cancel). */
export function shuttingDown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason === RUNNER_SHUTDOWN;
}

export function unitEnded(u: WorkUnit): boolean {
  return u.superseded_by !== undefined || u.state === "completed" || u.state === "failed" || u.state === "cancelled";
}
