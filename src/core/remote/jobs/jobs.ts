import { EventEmitter } from "node:events";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { BUNDLE_ENV_DIR, type JobEvent, type JobEventInput, type JobRecord, type JobState, TERMINAL_STATES } from "../api";
import { DEFAULT_UNPACK_LIMITS, type UnpackLimits, unpackBundle } from "../bundle/bundle";
import { type ExecutionContext, type Executor, RUNNER_SHUTDOWN } from "./executor";
import { GpuSampler } from "./gpu-sampler";
import { IdempotentSubmits } from "./idempotent-submits";
import { JobEventBatcher } from "./job-event-batcher";
import { JobMerger } from "./job-merger";
import { type ActiveJob, JobQueue } from "./job-queue";
import { JobJournal } from "./journal";
import { checkedEnvironment, JobSpecError, jobSize, newJobId, readBundleSpec } from "./job-intake";
import { mergedRunDir } from "./merge";
import { checkTokenizerFolder, jobPolicyServer, POLICY_SERVER_LOG, type StartedPolicyServer } from "./policy-server";
import { watchJobRollouts } from "./job-progress";
import type { RolloutWatcher } from "./rollout-watch";

export interface JobManagerOptions {
  dataDir: string;
  version: string;
  /** argv that starts the `rlenv` CLI for work units. */
  rlenvCommand: string[];
  executors: Partial<Record<"local" | "slurm" | "kubernetes", Executor>>;
  maxConcurrentJobs?: number;
  /** Resume interrupted jobs at start-up (default true). */
  resumeInterrupted?: boolean;
  limits?: UnpackLimits;
  /** Seconds between GPU samples while a job runs (0: none). */
  gpuSampleS?: number;
}

/**
 * The runner's jobs: accepts bundles, queues and runs jobs on an executor, journals
 * every change, streams events, and picks everything up again after a restart.
 * Events: `event` (jobId, JobEvent). Its parts: the queue (job-queue.ts), the event
 * batcher (job-event-batcher.ts), the GPU sampler (gpu-sampler.ts), the merger of run
 * folders (job-merger.ts) and the idempotency keys (idempotent-submits.ts).
 */
export class JobManager extends EventEmitter {
  readonly journal: JobJournal;
  private readonly jobs = new Map<string, JobRecord>();
  private readonly queue: JobQueue;
  private readonly keys = new IdempotentSubmits();
  readonly started = Date.now();
  /** Rollout ends seen by this process, for rollouts/s. */
  readonly rolloutEnds: number[] = [];
  /** Live watchers of running jobs: a pull while running reuses what they know. */
  private readonly watchers = new Map<string, RolloutWatcher>();
  private readonly merger: JobMerger;
  private readonly events: JobEventBatcher;
  private readonly gpus: GpuSampler;

  constructor(private readonly opts: JobManagerOptions) {
    super();
    this.journal = new JobJournal(opts.dataDir);
    this.queue = new JobQueue(opts.maxConcurrentJobs ?? 2, (id, act) =>
      this.runJob(id, act.abort.signal, act).catch((e: unknown) => {
        this.finish(id, act.reason === "cancel" ? "cancelled" : "failed", (e as Error).message);
      }),
    );
    this.merger = new JobMerger(opts.version);
    this.events = new JobEventBatcher(this.journal, (id, ev) => this.emit("event", id, ev));
    this.gpus = new GpuSampler(
      opts.gpuSampleS ?? 5,
      () => this.queue.runningIds(),
      (id, gpus) =>
        this.emitEvent(id, {
          type: "gpu",
          gpus: gpus.map((g) => ({ index: g.index, utilisation: g.utilisation, memory_used_mib: g.memory_used_mib })),
        }),
    );
  }

  get capacity(): number {
    return this.queue.capacity;
  }

  /** Mean GPU utilisation (0-1) at the last sample. */
  get lastGpuUtilisation(): number | undefined {
    return this.gpus.lastUtilisation;
  }

  /** Reads the journal; jobs a killed runner left running are marked interrupted and resumed. */
  async init(): Promise<string[]> {
    const { jobs, problems } = this.journal.loadAll();
    for (const job of jobs) {
      this.jobs.set(job.id, job);
      if (job.idempotency_key) this.keys.remember(job.idempotency_key, job.id);
    }
    for (const job of jobs) {
      if (job.state === "running" || job.state === "interrupted") {
        if (job.state === "running") {
          this.update(job.id, (j) => {
            j.state = "interrupted";
            j.interruptions += 1;
          });
          this.emitEvent(job.id, { type: "state", state: "interrupted", reason: "the runner stopped while the job ran" });
        }
        const executor = this.opts.executors[job.spec.executor];
        if (executor) await executor.recover(this.context(job.id, new AbortController().signal));
        if (this.opts.resumeInterrupted ?? true) this.enqueue(job.id);
      } else if (job.state === "queued") {
        this.enqueue(job.id);
      }
    }
    this.pump();
    return problems;
  }

  list(): JobRecord[] {
    return [...this.jobs.values()].sort((a, b) => b.created.localeCompare(a.created));
  }

  get(id: string): JobRecord | undefined {
    return this.jobs.get(id);
  }

  executorKinds(): string[] {
    return Object.keys(this.opts.executors);
  }

  queued(): number {
    return this.queue.waitingCount;
  }

  runningCount(): number {
    return this.queue.runningCount;
  }

  jobDir(id: string): string {
    return this.journal.jobDir(id);
  }

  /** Accepts a bundle (tar: job.json + env/). The same idempotency key returns the first job. */
  submit(body: Readable, idempotencyKey?: string): Promise<{ job: JobRecord; created: boolean }> {
    return this.keys.submit(
      idempotencyKey,
      body,
      (id) => this.jobs.get(id),
      () => this.accept(body, idempotencyKey),
    );
  }

  private async accept(body: Readable, idempotencyKey?: string): Promise<{ job: JobRecord; created: boolean }> {
    const tmpRoot = path.join(this.opts.dataDir, "tmp");
    mkdirSync(tmpRoot, { recursive: true });
    const id = newJobId();
    const staging = path.join(tmpRoot, id);
    await unpackBundle(body, staging, this.opts.limits ?? DEFAULT_UNPACK_LIMITS);
    try {
      const spec = readBundleSpec(staging, this.opts.executors);
      const env = await checkedEnvironment(path.join(staging, BUNDLE_ENV_DIR));
      const size = jobSize(spec, env);
      const record: JobRecord = {
        id,
        ...(spec.name ? { name: spec.name } : {}),
        state: "queued",
        created: new Date().toISOString(),
        env: { name: env.name, hash: env.hash, domain: env.domain, tasks: size.tasks },
        spec,
        ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
        progress: { done: 0, total: size.total, mean_reward: null },
        units: [],
        interruptions: 0,
        run_id: `${env.name.replace(/[^A-Za-z0-9_.-]/g, "_")}-${id}`,
      };
      record.units = this.opts.executors[spec.executor]?.plan(record) ?? [];
      renameSync(staging, this.journal.jobDir(id));
      this.jobs.set(id, record);
      this.journal.save(record);
      if (idempotencyKey) this.keys.remember(idempotencyKey, id);
      this.emitEvent(id, { type: "state", state: "queued" });
      this.enqueue(id);
      this.pump();
      return { job: record, created: true };
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      throw e;
    }
  }

  /** Cancels a queued or running job; resolves once everything it started has stopped. */
  async cancel(id: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (TERMINAL_STATES.includes(job.state)) return job;
    this.queue.remove(id);
    const act = this.queue.active(id);
    if (act) {
      act.reason = "cancel";
      act.abort.abort();
      await act.done;
    } else {
      this.finish(id, "cancelled", "cancelled before it started");
    }
    return this.jobs.get(id);
  }

  /** Resumes an interrupted job (a runner started with --no-resume leaves them so). */
  resume(id: string): JobRecord | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (job.state !== "interrupted") throw new JobSpecError(`job ${id} is ${job.state}, not interrupted`, "state");
    this.enqueue(id);
    this.pump();
    return job;
  }

  /** Stops running jobs without marking them cancelled (a restart resumes them). */
  async shutdown(): Promise<void> {
    this.gpus.stop();
    const all = this.queue.allActive();
    for (const a of all) {
      a.reason = "shutdown";
      a.abort.abort(RUNNER_SHUTDOWN);
    }
    await Promise.all(all.map((a) => a.done));
    this.events.flush();
    this.journal.close();
  }

  /**
   * The merged run folder brought up to date, with the rollout files in it that have
   * ended for good (`finished`: only while the job runs), and whether the folder can
   * still change (`live`). Once `live` is false the folder is final: the job ended
   * and its last merge happened before its state changed.
   */
  runView(id: string, opts: { fresh?: boolean } = {}): { dir: string; finished: string[]; live: boolean } | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const dir = mergedRunDir(this.jobDir(id));
    // A finished job's folder was merged for good when it ended.
    if (TERMINAL_STATES.includes(job.state)) return { dir, finished: [], live: false };
    // The live watcher's view is at most one of its ticks old, enough for a following pull.
    // A snapshot also wants the rollouts still running, which a watcher that does not poll
    // (its executor reports ends) has not seen yet: one pass finds them.
    const watcher = this.watchers.get(id);
    if (opts.fresh) watcher?.scan();
    const finished = this.merger.update(job, this.jobDir(id), watcher?.all());
    // An interrupted job that is neither queued nor running waits for `resume`: nothing changes meanwhile.
    const live = job.state !== "interrupted" || this.queue.isWaiting(id) || this.queue.active(id) !== undefined;
    return { dir, finished, live };
  }

  eventsAfter(id: string, after: number): JobEvent[] {
    // Events still waiting for their write go out first: a reader of the journal misses none.
    this.events.flush();
    return this.journal.eventsAfter(id, after);
  }

  private enqueue(id: string): void {
    this.queue.enqueue(id);
  }

  private pump(): void {
    this.queue.pump();
    this.gpus.start();
  }

  private async runJob(id: string, signal: AbortSignal, act: ActiveJob): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return;
    const executor = this.opts.executors[job.spec.executor];
    if (!executor) throw new Error(`executor ${job.spec.executor} is not configured`);
    // Journalled with the executor's first unit update (right after its spawn), not before:
    // a write and fsync less between a submit and its run starting. A runner that dies in
    // between finds the job queued and runs it again, as it would have then anyway.
    job.state = "running";
    job.started ??= new Date().toISOString();
    this.emitEvent(id, { type: "state", state: "running" });
    const watcher = this.watch(id, executor.reportsRolloutEnds);
    watcher.start();
    this.watchers.set(id, watcher);
    let server: StartedPolicyServer | undefined;
    // A policy server that exits mid-job stops the units: what it leaves is an infrastructure failure, never a reward.
    const serverDied = new AbortController();
    let serverGone: string | undefined;
    try {
      if (executor.kind === "local") checkTokenizerFolder(job.spec.config.policy);
      const log = (line: string) => this.emitEvent(id, { type: "log", line });
      const ps = await jobPolicyServer(job.spec.policy_server, executor.kind === "local", this.jobDir(id), signal, log, (how) => {
        serverGone = how;
        serverDied.abort();
      });
      server = ps.server;
      const policyBaseUrl = ps.baseUrl;
      await executor.execute(this.context(id, AbortSignal.any([signal, serverDied.signal]), policyBaseUrl));
    } finally {
      await server?.stop();
      watcher.stop();
      this.watchers.delete(id);
    }
    if (act.reason === "shutdown") return;
    this.merger.keepFinalView(id, watcher.all());
    if (serverGone && act.reason !== "cancel") {
      this.finish(
        id,
        "failed",
        `infrastructure: the policy server ${serverGone} during the job (see ${POLICY_SERVER_LOG} in the job folder)`,
      );
      return;
    }
    const units = this.jobs.get(id)?.units ?? [];
    const failed = units.find((u) => u.state === "failed" && !u.superseded_by);
    // A unit cancelled that nobody asked to cancel did not run to its end: never a completed job.
    const stopped = units.find((u) => u.state === "cancelled" && !u.superseded_by);
    if (act.reason === "cancel") this.finish(id, "cancelled", "cancelled by request");
    else if (failed) this.finish(id, "failed", failed.error ?? `unit ${failed.id} failed`);
    else if (stopped) this.finish(id, "failed", `unit ${stopped.id} was cancelled though the job was not`);
    else this.finish(id, "completed");
  }

  private finish(id: string, state: JobState, reason?: string): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.update(id, (j) => {
      j.state = state;
      j.ended = new Date().toISOString();
      if (state === "failed" && reason) j.error = reason;
    });
    const updated = this.jobs.get(id);
    if (updated) {
      try {
        this.merger.final(updated, this.jobDir(id));
      } catch (e) {
        this.emitEvent(id, { type: "log", line: `merging the run folder failed: ${(e as Error).message}` });
      }
    }
    this.emitEvent(id, { type: "state", state, ...(reason ? { reason } : {}) });
  }

  /** Follows the units' trajectories: rollout-end and progress events (job-progress.ts). */
  private watch(id: string, reported: boolean): RolloutWatcher {
    return watchJobRollouts(
      {
        job: () => this.jobs.get(id),
        jobDir: this.jobDir(id),
        rolloutEnds: this.rolloutEnds,
        emit: (input) => this.emitEvent(id, input),
        save: (job) => this.journal.save(job),
      },
      reported,
    );
  }

  private context(id: string, signal: AbortSignal, policyBaseUrl?: string): ExecutionContext {
    const jobDir = this.jobDir(id);
    return {
      jobId: id,
      jobDir,
      envDir: path.join(jobDir, BUNDLE_ENV_DIR),
      job: () => {
        const j = this.jobs.get(id);
        if (!j) throw new Error(`job ${id} vanished`);
        return j;
      },
      update: (mutate) => this.update(id, mutate),
      log: (line, unit) => this.emitEvent(id, { type: "log", line, ...(unit ? { unit } : {}) }),
      rolloutEnded: (unit, end) => {
        // As with polling: only units whose output counts are followed.
        if (this.jobs.get(id)?.units.find((u) => u.id === unit)?.keep === "none") return;
        this.watchers.get(id)?.noteEnd(unit, end);
      },
      observe: (o) => this.emit("observation", id, o),
      signal,
      rlenvCommand: this.opts.rlenvCommand,
      unitRunsDir: (u) => path.join(jobDir, u.runs_dir),
      ...(policyBaseUrl ? { policyBaseUrl } : {}),
    };
  }

  private update(id: string, mutate: (job: JobRecord) => void): void {
    const job = this.jobs.get(id);
    if (!job) return;
    mutate(job);
    this.journal.save(job);
  }

  /** Journals an event at the end of this turn of the event loop, then sends it to listeners (see JobEventBatcher). */
  private emitEvent(id: string, input: JobEventInput): void {
    this.events.add(id, input);
  }
}
