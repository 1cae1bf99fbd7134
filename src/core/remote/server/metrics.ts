import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Observation } from "../../util/observations";
import { type GpuInfo, type JobEvent, JobState, TERMINAL_STATES } from "../api";
import { ERROR_CLASSES, rolloutErrorClass } from "../jobs/error-class";
import { queryGpus } from "../jobs/gpus";
import type { JobManager } from "../jobs/jobs";
import { mergedRunDir } from "../jobs/merge";

/** Seconds buckets: a warm sandbox comes up in tens of ms, a cold image in tens of seconds. */
const SANDBOX_START_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds buckets: a short completion in tens of ms, a long generation on a busy server in minutes. */
const POLICY_REQUEST_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** nvidia-smi is asked at most this often however often Prometheus scrapes. */
const GPU_QUERY_EVERY_MS = 2000;
const MIB = 1024 * 1024;

/**
 * The runner's `/metrics` (Prometheus text, prom-client). The names of the first version
 * (rlenv_jobs, rlenv_queue_depth, rlenv_rollouts_total, rlenv_rollouts_per_second,
 * rlenv_policy_utilisation, rlenv_gpu_utilisation) are kept with their meaning; the rest are
 * documented in docs/monitoring.md. Rollout ends come from the job manager's events, what
 * only the rollout processes see (starts, sandbox starts, policy requests, error classes)
 * from the executors' observations.
 */
export class RunnerMetrics {
  readonly registry = new Registry();
  private readonly rolloutsTotal: Counter;
  private readonly errors: Counter<"class">;
  private readonly hackSignals: Counter<"signal">;
  private readonly sandboxStart: Histogram;
  private readonly policyRequest: Histogram;
  /** Per running job: rollouts started and not yet ended. */
  private readonly inFlight = new Map<string, number>();
  private gpuCache: { at: number; answer: ReturnType<typeof queryGpus> } | undefined;

  constructor(private readonly jobs: JobManager) {
    const registers = [this.registry];
    // Registered in the order /metrics lists them.
    jobGauges(jobs, registers);
    this.rolloutsTotal = new Counter({ name: "rlenv_rollouts_total", help: "Rollouts ended since the runner started.", registers });
    rolloutGauges(jobs, this.inFlight, registers);
    this.errors = new Counter({
      name: "rlenv_rollout_errors_total",
      help: "Rollouts that ended in error, by class (timeout, task_error, infra_sandbox, infra_policy, infra_other).",
      labelNames: ["class"],
      registers,
    });
    // Every class is there from the start at 0: rate() of a series that appears at its first error misses that error.
    for (const c of ERROR_CLASSES) this.errors.inc({ class: c }, 0);
    this.hackSignals = new Counter({
      name: "rlenv_hack_signals_total",
      help: "Rollouts whose submission raised a hack signal, by signal (test-framework, frame-introspection, process-peek, …): a rising rate is a reward hack spreading through training.",
      labelNames: ["signal"],
      registers,
    });
    this.sandboxStart = new Histogram({
      name: "rlenv_sandbox_start_seconds",
      help: "Time from asking for a rollout's sandbox to its being ready (start or warm-pool take, reset, seed files).",
      buckets: SANDBOX_START_BUCKETS,
      registers,
    });
    this.policyRequest = new Histogram({
      name: "rlenv_policy_request_seconds",
      help: "Time of each request to the policy server, from sending to the whole reply.",
      buckets: POLICY_REQUEST_BUCKETS,
      registers,
    });
    policyAndGpuGauges(jobs, () => this.sampleGpus(), registers);
    jobs.on("event", (id: string, ev: JobEvent) => this.onEvent(id, ev));
    jobs.on("observation", (id: string, o: Observation) => this.observe(id, o));
  }

  /** Prometheus text of every metric. */
  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** What a job's rollout processes saw happen. */
  observe(jobId: string, o: Observation): void {
    if (o.kind === "rollout-start") this.inFlight.set(jobId, (this.inFlight.get(jobId) ?? 0) + 1);
    else if (o.kind === "sandbox-start") this.sandboxStart.observe(o.ms / 1000);
    else if (o.kind === "policy-request") this.policyRequest.observe(o.ms / 1000);
    else if (o.kind === "rollout-error") this.errors.inc({ class: o.class });
    else if (o.kind === "hack-signal") this.hackSignals.inc({ signal: o.signal });
  }

  private onEvent(jobId: string, ev: JobEvent): void {
    if (ev.type === "rollout-end") {
      this.rolloutsTotal.inc();
      const n = this.inFlight.get(jobId);
      if (n !== undefined) this.inFlight.set(jobId, Math.max(0, n - 1));
      // Executors that do not report their units' observations (Slurm's shards write on a
      // shared folder): the class is the status's alone.
      if (this.jobs.get(jobId)?.spec.executor !== "local") {
        const c = rolloutErrorClass(ev);
        if (c) this.errors.inc({ class: c });
      }
    } else if (ev.type === "state" && ev.state !== "running") {
      // A job that stopped running has nothing in flight (its units' processes are gone).
      this.inFlight.delete(jobId);
    }
  }

  private sampleGpus(): ReturnType<typeof queryGpus> {
    const now = Date.now();
    if (!this.gpuCache || now - this.gpuCache.at >= GPU_QUERY_EVERY_MS) this.gpuCache = { at: now, answer: queryGpus() };
    return this.gpuCache.answer;
  }
}

const byManager = new WeakMap<JobManager, RunnerMetrics>();

/** The metrics of a job manager, made (and subscribed to its events) on the first call. */
export function runnerMetrics(jobs: JobManager): RunnerMetrics {
  let m = byManager.get(jobs);
  if (!m) {
    m = new RunnerMetrics(jobs);
    byManager.set(jobs, m);
  }
  return m;
}

/** `GET /metrics` in the Prometheus text exposition format. */
export function renderMetrics(jobs: JobManager): Promise<{ contentType: string; text: string }> {
  return runnerMetrics(jobs).render();
}

/** The engine reports the policy's utilisation in each run's summary; the newest finished job's. */
function latestPolicyUtilisation(jobs: JobManager): number {
  const done = jobs.list().find((j) => j.state === "completed");
  if (!done) return 0;
  const f = path.join(mergedRunDir(jobs.jobDir(done.id)), "summary.json");
  if (!existsSync(f)) return 0;
  try {
    return (JSON.parse(readFileSync(f, "utf8")) as { utilisation?: { policy?: number } }).utilisation?.policy ?? 0;
  } catch {
    return 0; // being written
  }
}

type Registers = Registry[];

/** Jobs by state and the queue's depth. */
function jobGauges(jobs: JobManager, registers: Registers): void {
  new Gauge({
    name: "rlenv_jobs",
    help: "Jobs by state.",
    labelNames: ["state"],
    registers,
    collect() {
      const all = jobs.list();
      for (const s of JobState.options) this.set({ state: s }, all.filter((j) => j.state === s).length);
    },
  });
  new Gauge({
    name: "rlenv_queue_depth",
    help: "Jobs waiting for a slot.",
    registers,
    collect() {
      this.set(jobs.queued());
    },
  });
}

/** Rollouts per second, in flight, and not yet started. */
function rolloutGauges(jobs: JobManager, inFlight: ReadonlyMap<string, number>, registers: Registers): void {
  new Gauge({
    name: "rlenv_rollouts_per_second",
    help: "Rollouts ended per second over the last minute.",
    registers,
    collect() {
      const now = Date.now();
      this.set(jobs.rolloutEnds.filter((t) => now - t <= 60_000).length / 60);
    },
  });
  new Gauge({
    name: "rlenv_rollouts_in_flight",
    help: "Rollouts started and not yet ended, over the running jobs.",
    registers,
    collect() {
      let n = 0;
      for (const v of inFlight.values()) n += v;
      this.set(n);
    },
  });
  new Gauge({
    name: "rlenv_rollouts_backlog",
    help: "Rollouts of queued and running jobs that have not started yet.",
    registers,
    collect() {
      let n = 0;
      for (const j of jobs.list()) {
        if (TERMINAL_STATES.includes(j.state)) continue;
        n += Math.max(0, j.progress.total - j.progress.done - (inFlight.get(j.id) ?? 0));
      }
      this.set(n);
    },
  });
}

/** The policy's utilisation and the GPU gauges. */
function policyAndGpuGauges(jobs: JobManager, sampleGpus: () => Promise<{ gpus: GpuInfo[] }>, registers: Registers): void {
  new Gauge({
    name: "rlenv_policy_utilisation",
    help: "Fraction of wall time the policy had requests in flight (latest completed job).",
    registers,
    collect() {
      this.set(latestPolicyUtilisation(jobs));
    },
  });
  // One nvidia-smi call (cached for a scrape) feeds the four GPU gauges.
  new Gauge({
    name: "rlenv_gpu_utilisation",
    help: "Mean GPU utilisation (0-1) at the last sample.",
    registers,
    async collect() {
      const { gpus } = await sampleGpus();
      this.set(gpus.length > 0 ? gpus.reduce((a, g) => a + g.utilisation, 0) / gpus.length / 100 : (jobs.lastGpuUtilisation ?? 0));
    },
  });
  const perGpu = (name: string, help: string, value: (g: GpuInfo) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["gpu", "name"],
      registers,
      async collect() {
        const { gpus } = await sampleGpus();
        this.reset();
        for (const g of gpus) this.set({ gpu: String(g.index), name: g.name }, value(g));
      },
    });
  perGpu("rlenv_gpu_utilisation_ratio", "Utilisation (0-1) of each GPU, from nvidia-smi at the scrape.", (g) => g.utilisation / 100);
  perGpu("rlenv_gpu_memory_used_bytes", "Memory used on each GPU.", (g) => g.memory_used_mib * MIB);
  perGpu("rlenv_gpu_memory_total_bytes", "Memory of each GPU.", (g) => g.memory_total_mib * MIB);
}
