import { mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import type { LoadedTask } from "../model/environment";
import { type BackoffOptions, backoffDelay, sleep } from "../util/backoff";
import { type Policy, PolicyRequestError } from "../policy/types";
import { ATTEMPTS_DIR, attemptFile, ROLLOUTS_DIR } from "../runs/run-dir";
import { INFRA_BACKOFF } from "./backend-wait";
import { rolloutId } from "./ids";
import type { RolloutResult, RunRolloutOptions } from "./rollout-types";
import { runRollout } from "./run-rollout";

/** What every rollout of a run shares, for `runWithInfraRetries`. */
export interface RolloutAttempts {
  runDir: string;
  /** The options every rollout of the run gets alike (its own task, sample, policy, file and id are added). */
  shared: Omit<RunRolloutOptions, "task" | "sample" | "policy" | "file" | "rolloutId" | "seed" | "previousAttempts">;
  /** The run's seed; a sample's rollout gets seed + sample. */
  seed?: number;
  makePolicy(task: LoadedTask, sample: number): Policy;
  policyKind: string;
  maxAttempts: number;
  /** The pause before a rollout's next try (INFRA_BACKOFF when absent). */
  backoff?: BackoffOptions;
  /** Resolves once the sandbox backend answers again, or with the reason it did not in time (waitForBackend). */
  backendReady?: () => Promise<string | undefined>;
  signal: AbortSignal;
  /** Tries of a resumed run's rollouts set aside before this run (files relative to the run folder). */
  setAside?: ReadonlyMap<string, ReadonlyArray<{ file: string; reason: string }>>;
  started(e: { task: string; sample: number; rolloutId: string; file: string; attempt: number }): void;
  warn(message: string): void;
}

/**
 * One rollout of a run, tried again while the infrastructure fails it (sandbox lost, policy
 * server down), up to `maxAttempts`, with backoff; task failures never retry. A failed try
 * is kept in attempts/, out of the run's rollouts, and the next try's start names it.
 */
export async function runWithInfraRetries(a: RolloutAttempts, task: LoadedTask, sample: number): Promise<RolloutResult> {
  const id = rolloutId(task.id, sample);
  const file = path.join(a.runDir, ROLLOUTS_DIR, `${id}.jsonl`);
  const previousAttempts: Array<{ file: string; reason: string }> = [...(a.setAside?.get(id) ?? [])];
  for (let attempt = 1; ; attempt++) {
    let policy: Policy;
    try {
      policy = a.makePolicy(task, sample);
    } catch (e) {
      policy = brokenPolicy(a.policyKind, e as Error);
    }
    a.started({ task: task.id, sample, rolloutId: id, file, attempt });
    const res = await runRollout({
      ...a.shared,
      task,
      sample,
      policy,
      file,
      rolloutId: id,
      ...(a.seed !== undefined ? { seed: a.seed + sample } : {}),
      ...(previousAttempts.length > 0 ? { previousAttempts: [...previousAttempts] } : {}),
    });
    if (!res.infra || attempt >= a.maxAttempts || a.signal.aborted) return { ...res, attempts: attempt };
    const kept = attemptFile(id, attempt);
    mkdirSync(path.join(a.runDir, ATTEMPTS_DIR), { recursive: true });
    renameSync(file, path.join(a.runDir, kept));
    previousAttempts.push({ file: kept, reason: res.reason ?? "infrastructure failure" });
    a.warn(`${id}: infrastructure failure (${res.reason}); retry ${attempt + 1}/${a.maxAttempts}`);
    try {
      // A try while the backend is still down would fail at once: the next waits for it to answer,
      // then for a share of the backoff, so that the rollouts one outage failed do not all start at once.
      const notBack = await a.backendReady?.();
      if (notBack) {
        a.warn(`${id}: not retried: ${notBack}`);
        return { ...res, reason: `${res.reason ?? "infrastructure failure"}; ${notBack}`, attempts: attempt };
      }
      await sleep(backoffDelay(attempt - 1, a.backoff ?? INFRA_BACKOFF), a.signal);
    } catch {
      return { ...res, attempts: attempt };
    }
  }
}

/** A policy that could not be made fails its rollout with the reason, recorded in the trajectory. */
function brokenPolicy(kind: string, err: Error): Policy {
  return {
    kind,
    next: async () => {
      throw new PolicyRequestError(err.message);
    },
  };
}
