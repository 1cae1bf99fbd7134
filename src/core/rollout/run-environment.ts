import { setMaxListeners } from "node:events";
import path from "node:path";
import type { z } from "zod";
import { findDomain } from "../domains/registry";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { abortReason, type BackoffOptions } from "../util/backoff";
import { createPolicy } from "../policy/create";
import type { Policy } from "../policy/types";
import { SUMMARY_FILE, writeJsonAtomic } from "../runs/run-dir";
import { summarize } from "../runs/summarize";
import { providerForEnvironment } from "../sandbox/select";
import type { SandboxProvider } from "../model/sandbox";
import { RunConfig, type RunRecord, type RunSummary } from "../schema/run";
import type { RolloutStatus } from "../schema/trajectory";
import type { DomainPlugin } from "../model/domain";
import { newRunId, rolloutId } from "./ids";
import type { Limiter } from "./limiter";
import { planResume, resumableRecord } from "./resume-run";
import type { RolloutHooks, RolloutResult } from "./rollout-types";
import { closeRunRecord, openRunRecord } from "./run-record";
import { type ScheduleUse, scheduleRollouts } from "./run-schedule";
import { RunTally } from "./run-tally";
import { buildToolset, type Toolset } from "./toolset";

/** What a run reports as it goes (the CLI's progress bar, the extension's dashboard, the runner's stream). */
export type RunProgress =
  | { type: "rollout-start"; task: string; sample: number; rolloutId: string; file: string; attempt: number }
  | {
      type: "rollout-end";
      task: string;
      sample: number;
      rolloutId: string;
      status: RolloutStatus;
      reward: number | null;
      file: string;
      reason?: string;
      infra: boolean;
      failure?: string;
    }
  | {
      type: "progress";
      done: number;
      total: number;
      meanReward: number | null;
      /** Rollouts finished per second so far. */
      rate: number;
      /** Seconds left at the current rate; null before the first rollout ends. */
      eta: number | null;
      policyInFlight: number;
      policyQueue: number;
      sandboxesBusy: number;
    }
  | { type: "log"; level: "info" | "warn" | "error"; message: string };

export type PolicyFactory = (ctx: { env: Environment; task: LoadedTask; sample: number; config: RunConfig }) => Policy;

export interface RunEnvironmentOptions {
  env: Environment;
  config: z.input<typeof RunConfig>;
  runsDir: string;
  runId?: string;
  signal?: AbortSignal;
  onProgress?: (e: RunProgress) => void;
  /** Shared provider (kept open); otherwise one is made from config.sandbox and shut down at the end. */
  sandboxProvider?: SandboxProvider;
  /** Make the policy for one rollout; defaults to config.policy. */
  policyFactory?: PolicyFactory;
  hooks?: RolloutHooks;
  /** Finish this run folder instead of starting a run: its config, only the rollouts it lacks (see resume-run.ts). */
  resumeDir?: string;
  /** resumeDir's record, when the caller has resolved it already (core/app reads it once); read from resumeDir otherwise. */
  resumed?: RunRecord;
  /** Attempts per rollout when the infrastructure fails (sandbox lost, policy server down); task failures never retry. Default: config.infra_retries + 1. */
  maxInfraAttempts?: number;
  infraBackoff?: BackoffOptions;
  /** How long a rollout that the infrastructure failed waits for the sandbox backend to answer again before its next try (default DEFAULT_BACKEND_WAIT_MS). */
  backendWaitMs?: number;
  unsafeNoSandbox?: boolean;
  /** A missing sandbox image is not built: the run fails naming the command that builds it. */
  noBuild?: boolean;
  /**
   * Rollout slots shared with other runs, in place of config.concurrency: `validate --run`
   * runs oracle and nop through one set, so nop rollouts start while the oracle's last ones
   * finish instead of after them. Slots go to waiting rollouts first come, first served.
   */
  slots?: Limiter;
}

/** Marks the run's end when the disk still takes it (a full one may not: the record then reads as interrupted anyway, its owner gone). */
function tryCloseRecord(runDir: string, record: RunRecord, status: RunRecord["status"]): void {
  try {
    closeRunRecord(runDir, record, status);
  } catch {}
}

/** Tries after an infrastructure failure when the config names none. */
export const DEFAULT_INFRA_RETRIES = 2;

export interface RunEnvironmentResult {
  runDir: string;
  record: RunRecord;
  summary: RunSummary;
  rollouts: RolloutResult[];
}

/** The tasks a run covers: the named ones (all when none are named), then this shard's share. */
export function selectTasks(env: Environment, config: RunConfig): LoadedTask[] {
  let tasks = env.tasks;
  // Named samples name their tasks too, when no task list is given.
  const wanted = config.tasks && config.tasks.length > 0 ? config.tasks : config.samples ? Object.keys(config.samples) : undefined;
  if (wanted && wanted.length > 0) {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const unknown = wanted.filter((id) => !byId.has(id));
    if (unknown.length > 0)
      throw new Error(
        `unknown task id${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `'${u}'`).join(", ")} in ${env.manifest.name}; tasks: ${tasks
          .map((t) => t.id)
          .slice(0, 20)
          .join(", ")}`,
      );
    tasks = wanted.map((id) => byId.get(id)!);
  }
  // Shards split by task, so every sample of a task lands in one shard and pass@k stays whole.
  if (config.shard) {
    const { index, count } = config.shard;
    if (index >= count) throw new Error(`shard ${index}/${count}: the index must be below the count`);
    tasks = tasks.filter((_, i) => i % count === index);
  }
  return tasks;
}

/** The sample indices a run covers of one task: the ones `samples` names for it, else 0…k-1. */
export function samplesOf(taskId: string, config: Pick<RunConfig, "k" | "samples">): number[] {
  const named = config.samples?.[taskId];
  return named ? [...new Set(named)].sort((a, b) => a - b) : Array.from({ length: config.k }, (_, i) => i);
}

/** A run opened: its config, folder and record, the tasks it covers, the sandboxes and the domain ready. */
interface OpenRun {
  config: RunConfig;
  runId: string;
  runDir: string;
  record: RunRecord;
  resumed: ReturnType<typeof resumableRecord> | null;
  tasks: LoadedTask[];
  domain: DomainPlugin | null;
  toolset: Toolset;
  provider: SandboxProvider;
  /** The provider was made for this run (not handed in): it is shut down at the end. */
  ownProvider: boolean;
  progress(e: RunProgress): void;
}

/**
 * N tasks × k samples through the agent loop, with separate limits for sandboxes
 * (concurrent rollouts) and in-flight policy requests; infra failures retry with
 * backoff, task failures don't; the signal stops everything (running rollouts end
 * `cancelled`). Writes runs/<id>/run.json, rollouts/*.jsonl and summary.json.
 */
export async function runEnvironment(opts: RunEnvironmentOptions): Promise<RunEnvironmentResult> {
  // A rollout that throws (its runs disk failed a write) halts the run: those in flight end cancelled, none start.
  const halt = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, halt.signal]) : halt.signal;
  // Every running rollout listens on the run's signal; dozens are expected, not a leak.
  setMaxListeners(Math.max(100, 4 * ((opts.config.concurrency ?? 4) + 8)), signal);
  const run = await openRun(opts);
  const { config, runId, runDir, record, provider, progress } = run;
  const env = opts.env;
  const all = run.tasks.flatMap((task) => samplesOf(task.id, config).map((sample) => ({ task, sample })));
  // Resuming: the rollouts that ended stay as they are; the rest run, their unfinished tries set aside.
  const plan = run.resumed
    ? planResume(
        runDir,
        record,
        all.map((i) => rolloutId(i.task.id, i.sample)),
      )
    : null;
  const items = plan ? all.filter((i) => !plan.kept.has(rolloutId(i.task.id, i.sample))) : all;
  if (plan)
    progress({
      type: "log",
      level: "info",
      message: `resuming ${runId}: ${plan.kept.size} rollout${plan.kept.size === 1 ? "" : "s"} kept, ${items.length} to run`,
    });
  const makePolicy: PolicyFactory = opts.policyFactory ?? (({ task, sample, config: c }) => createPolicy(c.policy, task, sample));
  const tally = new RunTally(plan ? plan.kept.values() : []);
  let use: ScheduleUse;
  try {
    use = await scheduleRollouts({
      env,
      config,
      runId,
      runDir,
      provider,
      domain: run.domain,
      toolset: run.toolset,
      items,
      tally,
      signal,
      halt,
      progress,
      makePolicy: (task, sample) => makePolicy({ env, task, sample, config }),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      ...(opts.slots ? { slots: opts.slots } : {}),
      maxAttempts: opts.maxInfraAttempts ?? (config.infra_retries ?? DEFAULT_INFRA_RETRIES) + 1,
      ...(opts.infraBackoff ? { infraBackoff: opts.infraBackoff } : {}),
      ...(opts.backendWaitMs !== undefined ? { backendWaitMs: opts.backendWaitMs } : {}),
      ...(plan ? { setAside: plan.setAside } : {}),
    });
  } catch (e) {
    // Resumable: the trajectories' lines are whole, and --resume runs what did not finish.
    tryCloseRecord(runDir, record, "interrupted");
    throw e;
  } finally {
    if (run.ownProvider)
      await provider.shutdown().catch((e: Error) => progress({ type: "log", level: "warn", message: `sandbox shutdown: ${e.message}` }));
  }
  return finishRun(run, tally, use, signal);
}

/** The run's config (a resumed run keeps the one it started with), its record opened, its sandboxes and its domain ready. */
async function openRun(opts: RunEnvironmentOptions): Promise<OpenRun> {
  // A resumed run keeps the config it started with (opts.config is not looked at); one read, by the caller where it has one.
  const resumed = opts.resumeDir ? (opts.resumed ?? resumableRecord(path.resolve(opts.resumeDir))) : null;
  const config = resumed ? resumed.config : RunConfig.parse(opts.config);
  const env = opts.env;
  const progress = opts.onProgress ?? (() => {});
  const tasks = selectTasks(env, config);
  if (tasks.length === 0)
    throw new Error(`${env.manifest.name}: no tasks to run${config.shard ? ` in shard ${config.shard.index}/${config.shard.count}` : ""}`);
  const domain = await findDomain(env.manifest.domain);
  const toolset = buildToolset(env, domain);
  const runId = resumed ? resumed.id : (opts.runId ?? newRunId(env.manifest.name));
  const runDir = resumed && opts.resumeDir ? path.resolve(opts.resumeDir) : path.resolve(opts.runsDir, runId);
  const record = openRunRecord({ env, config, runId, runDir, runsDir: opts.runsDir, resumed });
  let provider: SandboxProvider;
  try {
    provider =
      opts.sandboxProvider ??
      (await providerForEnvironment(env, {
        backend: config.sandbox,
        ...(opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}),
        ...(opts.noBuild ? { noBuild: true } : {}),
        warn: (m) => progress({ type: "log", level: "warn", message: m }),
        log: (m) => progress({ type: "log", level: "info", message: m }),
      }));
  } catch (e) {
    closeRunRecord(runDir, record, "failed");
    throw e;
  }
  const run: OpenRun = {
    config,
    runId,
    runDir,
    record,
    resumed,
    tasks,
    domain,
    toolset,
    provider,
    ownProvider: !opts.sandboxProvider,
    progress,
  };
  // What a domain does once for the environment (parsing and indexing documents) happens
  // here, before the first rollout starts, so that no rollout's time includes it.
  if (domain?.prepare) {
    try {
      await domain.prepare(env, (m) => progress({ type: "log", level: "info", message: m }));
    } catch (e) {
      closeRunRecord(runDir, record, "failed");
      if (run.ownProvider) await provider.shutdown().catch(() => {});
      throw e;
    }
  }
  return run;
}

/** The run's summary written and its record closed: cancelled, incomplete (a rollout errored) or completed. */
function finishRun(run: OpenRun, tally: RunTally, use: ScheduleUse, signal: AbortSignal): RunEnvironmentResult {
  const { config, runId, runDir, record, progress } = run;
  const wallMs = performance.now() - use.t0;
  const results = [...tally.results].sort((a, b) => (a.rolloutId < b.rolloutId ? -1 : a.rolloutId > b.rolloutId ? 1 : 0));
  const summary = summarize(
    runId,
    results.map((r) => ({
      task: r.task,
      sample: r.sample,
      status: r.status,
      reward: r.reward,
      reason: r.reason,
      components: r.components,
      ...(r.infra ? { infra: true } : {}),
      ...(r.driftTurns !== undefined ? { driftTurns: r.driftTurns } : {}),
      ...(r.hackSignals ? { hackSignals: r.hackSignals, hackAction: r.hackAction } : {}),
      usage: r.usage,
      sandboxSeconds: r.sandboxSeconds,
      judge: r.judge,
      rewardHash: r.rewardHash,
    })),
    {
      k: config.k,
      utilisation: {
        policy: wallMs > 0 ? Math.min(1, use.policyLimit.busyTime() / wallMs) : 0,
        sandbox_busy_ms: use.sandboxBusyMs,
        max_queue_depth: use.policyLimit.maxQueueDepth,
        wall_ms: wallMs,
      },
    },
  );
  writeJsonAtomic(path.join(runDir, SUMMARY_FILE), summary);
  // The CLI exits 1 for a run with errored rollouts: its record must not say it completed.
  const errored = (summary.statuses.error ?? 0) > 0 || (summary.infra_errors ?? 0) > 0;
  const final = closeRunRecord(runDir, record, signal.aborted ? "cancelled" : errored ? "incomplete" : "completed");
  if (signal.aborted) progress({ type: "log", level: "warn", message: `run cancelled: ${abortReason(signal).message}` });
  return { runDir, record: final, summary, rollouts: results };
}
