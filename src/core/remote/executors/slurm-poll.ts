/**
 * What both Slurm executors' loops share between their reads of Slurm's state: the wait for
 * the next poll, and how long failed reads are borne before the job fails.
 */

/** How long the shards' states may go unread (slurmrestd down or timing out) before the job fails. */
export const POLL_GIVE_UP_MS = 5 * 60_000;

/**
 * Failed reads of Slurm's state, in a row. slurmrestd restarting or slow under load is no
 * reason to fail a long job (the shards run on without us): the first failure is logged, and
 * only one that has lasted past POLL_GIVE_UP_MS throws.
 */
export class PollFailures {
  private since: number | undefined;

  /** A read succeeded: the count starts again. */
  ok(): void {
    this.since = undefined;
  }

  /** A read failed: logs the first of a run, throws once the run has lasted past the bound. */
  failed(e: unknown, log: (line: string) => void): void {
    const first = this.since === undefined;
    this.since ??= Date.now();
    const msg = (e as Error).message;
    if (Date.now() - this.since > POLL_GIVE_UP_MS) throw new Error(`Slurm has not answered for ${POLL_GIVE_UP_MS / 1000} s: ${msg}`);
    if (first) log(`reading the shards' states from Slurm failed (${msg}): trying again`);
  }
}

/** Waits ms, or less when the signal aborts (resolving, never rejecting); its listener goes with it. */
export function pollSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      signal.removeEventListener("abort", done);
      resolve();
    }, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
  });
}
