import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { BackoffOptions } from "../util/backoff";
import type { SandboxProvider } from "../model/sandbox";
import type { RunConfig } from "../schema/run";
import type { DomainPlugin } from "../model/domain";
import { backendReadiness, DEFAULT_BACKEND_WAIT_MS } from "./backend-wait";
import { adaptiveConcurrencyFor } from "./concurrency-controller";
import { Limiter } from "./limiter";
import { type RolloutAttempts, runWithInfraRetries } from "./rollout-attempts";
import type { RolloutHooks, RolloutResult } from "./rollout-types";
import type { RunProgress } from "./run-environment";
import type { RunTally } from "./run-tally";
import type { Toolset } from "./toolset";

/** One rollout a run is to play: a task and its sample index. */
export interface RunItem {
  task: LoadedTask;
  sample: number;
}

/** What the scheduler needs of its run: the run's settings, its sandboxes, where it reports. */
export interface Schedule {
  env: Environment;
  config: RunConfig;
  runId: string;
  runDir: string;
  provider: SandboxProvider;
  domain: DomainPlugin | null;
  toolset: Toolset;
  items: RunItem[];
  tally: RunTally;
  /** The run's signal (the caller's, or the halt after a rollout threw). */
  signal: AbortSignal;
  /** Aborted with what a rollout threw (its runs disk failed a write): the run stops. */
  halt: AbortController;
  progress(e: RunProgress): void;
  makePolicy: RolloutAttempts["makePolicy"];
  hooks?: RolloutHooks;
  slots?: Limiter;
  maxAttempts: number;
  infraBackoff?: BackoffOptions;
  backendWaitMs?: number;
  setAside?: RolloutAttempts["setAside"];
}

/** How the schedule used the policy server and the sandboxes, for the summary's utilisation. */
export interface ScheduleUse {
  policyLimit: Limiter;
  sandboxBusyMs: number;
  /** When the rollouts began (performance.now()). */
  t0: number;
}

/**
 * The run's rollouts with separate limits for sandboxes (concurrent rollouts, or shared slots)
 * and in-flight policy requests (`concurrency_auto`: rollouts in flight follow the policy
 * server's throughput); each ends reported before its slot goes to the next. Resolves once every
 * worker has stopped, so none writes on after the run has thrown; the first throw is re-thrown.
 */
export async function scheduleRollouts(s: Schedule): Promise<ScheduleUse> {
  const { config, signal, halt } = s;
  const policyLimit = new Limiter(config.policy_concurrency ?? config.concurrency);
  const adaptive = config.concurrency_auto && !s.slots ? adaptiveConcurrencyFor(s.runDir, config.concurrency) : null;
  const slots = s.slots ?? adaptive?.slots;
  const use: ScheduleUse = { policyLimit, sandboxBusyMs: 0, t0: performance.now() };
  const attempts = rolloutAttempts(s, {
    policyCall: (fn, sig) => policyLimit.run(adaptive ? () => adaptive.timed(fn) : fn, sig),
    sandboxBusy: (ms) => (use.sandboxBusyMs += ms),
  });
  const running = { count: 0 };
  const report = progressReport(s, use, running);
  /** One rollout, its end reported before its slot (when slots are shared) goes to the next. */
  const one = async (item: RunItem): Promise<void> => {
    running.count++;
    const res = await runWithInfraRetries(attempts, item.task, item.sample)
      .catch((e: unknown) => {
        // A throw out of a rollout (a runs disk that failed a write, an engine fault) ends the run.
        if (!halt.signal.aborted) halt.abort(e);
        throw e;
      })
      .finally(() => running.count--);
    s.tally.add(res);
    s.progress(rolloutEnd(res));
    report();
  };
  /** False when the run was cancelled while the rollout waited for a shared slot. */
  const inSlot = async (item: RunItem): Promise<boolean> => {
    if (!slots) {
      await one(item);
      return true;
    }
    try {
      await slots.run(() => one(item), signal);
      return true;
    } catch (e) {
      if (signal.aborted) return false;
      throw e;
    }
  };
  let next = 0;
  const worker = async () => {
    while (!signal.aborted) {
      const item = s.items[next++];
      if (!item || !(await inSlot(item))) return;
    }
  };
  // Every worker is waited for, so none writes on after the run has thrown.
  const workers = Math.min(adaptive ? config.concurrency : (slots?.capacity ?? config.concurrency), s.items.length);
  const settled = await Promise.allSettled(Array.from({ length: workers }, worker));
  const thrown = halt.signal.aborted ? { reason: halt.signal.reason as unknown } : settled.find((x) => x.status === "rejected");
  if (thrown) throw thrown.reason;
  return use;
}

/** What every rollout of the run shares, for its tries (rollout-attempts.ts). */
function rolloutAttempts(s: Schedule, meter: NonNullable<RolloutAttempts["shared"]["meter"]>): RolloutAttempts {
  const { signal, progress } = s;
  return {
    runDir: s.runDir,
    shared: {
      env: s.env,
      sandboxProvider: s.provider,
      runId: s.runId,
      domain: s.domain,
      toolset: s.toolset,
      signal,
      ...(s.hooks ? { hooks: s.hooks } : {}),
      meter,
    },
    ...(s.config.seed !== undefined ? { seed: s.config.seed } : {}),
    makePolicy: s.makePolicy,
    policyKind: s.config.policy.kind,
    maxAttempts: s.maxAttempts,
    ...(s.infraBackoff ? { backoff: s.infraBackoff } : {}),
    backendReady: backendReadiness(s.provider, s.backendWaitMs ?? DEFAULT_BACKEND_WAIT_MS, signal, (message) =>
      progress({ type: "log", level: "info", message }),
    ),
    signal,
    ...(s.setAside ? { setAside: s.setAside } : {}),
    started: (e) => progress({ type: "rollout-start", ...e }),
    warn: (message) => progress({ type: "log", level: "warn", message }),
  };
}

/** The run's progress line after each rollout's end: done, mean reward, rate, the limits' queues. */
function progressReport(s: Schedule, use: ScheduleUse, running: { count: number }): () => void {
  return () => {
    const done = s.tally.done;
    const elapsed = (performance.now() - use.t0) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    s.progress({
      type: "progress",
      done,
      total: s.items.length,
      meanReward: s.tally.meanReward,
      rate,
      eta: done === 0 || rate === 0 ? null : (s.items.length - done) / rate,
      policyInFlight: use.policyLimit.inFlight,
      policyQueue: use.policyLimit.queueDepth,
      sandboxesBusy: running.count,
    });
  };
}

function rolloutEnd(res: RolloutResult): RunProgress {
  return {
    type: "rollout-end",
    task: res.task,
    sample: res.sample,
    rolloutId: res.rolloutId,
    status: res.status,
    reward: res.reward,
    file: res.file,
    infra: res.infra,
    ...(res.reason ? { reason: res.reason } : {}),
    ...(res.failure ? { failure: res.failure } : {}),
  };
}
