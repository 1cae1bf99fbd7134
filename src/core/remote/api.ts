import { z } from "zod";
import { RunConfig } from "../schema/run";

/**
 * The runner's HTTP API, shared by the server, the CLI client and the extension:
 * what a job asks for, what the runner reports about it, and its event stream.
 */

/** A policy server the job starts itself (e.g. `vllm serve …`) and waits for on /v1/models. */
export const PolicyServerSpec = z.union([
  z.object({ url: z.string().url().describe("An OpenAI-compatible server that is already up") }),
  z.object({
    command: z.string().min(1).describe("Shell command that starts the server; $PORT holds the port to listen on"),
    port: z.number().int().min(1).max(65535).default(8000),
    ready_timeout_s: z.number().positive().default(600),
  }),
]);
export type PolicyServerSpec = z.infer<typeof PolicyServerSpec>;

export const SlurmOptions = z.object({
  shards: z.number().int().positive().default(1).describe("Array tasks; each runs `rlenv run --shard i/N`"),
  gpus_per_shard: z.number().int().nonnegative().default(0).describe("--gres=gpu:N for each shard"),
  partition: z.string().optional(),
  max_retries: z.number().int().nonnegative().default(2).describe("Resubmissions of a failed shard"),
  time_limit_min: z.number().int().positive().optional(),
  elastic: z
    .boolean()
    .default(false)
    .describe(
      "Size the array from the backlog and the partition's idle nodes, add shards while rollouts wait and nodes are idle; `shards` is then ignored",
    ),
  max_shards: z.number().int().positive().optional().describe("elastic: most shards in Slurm at once"),
  rollouts_per_shard: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("elastic: rollouts a shard takes (default: the backlog over twice the idle nodes)"),
});
export type SlurmOptions = z.infer<typeof SlurmOptions>;

/** `job.json` inside the submitted bundle, next to the `env/` folder. */
export const JobSpec = z.object({
  name: z.string().max(200).optional(),
  config: RunConfig,
  executor: z.enum(["local", "slurm"]).default("local"),
  slurm: SlurmOptions.optional(),
  policy_server: PolicyServerSpec.optional(),
});
export type JobSpec = z.infer<typeof JobSpec>;
export type JobSpecInput = z.input<typeof JobSpec>;

export const JobState = z.enum(["queued", "running", "completed", "failed", "cancelled", "interrupted"]);
export type JobState = z.infer<typeof JobState>;
export const TERMINAL_STATES: readonly JobState[] = ["completed", "failed", "cancelled"];

export const JobProgress = z.object({
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  mean_reward: z.number().nullable(),
});
export type JobProgress = z.infer<typeof JobProgress>;

/** One `rlenv run` invocation of a job: the whole job locally, a shard on Slurm, a remainder after a resume. */
export const WorkUnit = z.object({
  id: z.string(),
  /** Task ids and samples this unit covers when it is a remainder; absent: the job's own selection. */
  tasks: z.array(z.string()).optional(),
  k: z.number().int().positive().optional(),
  shard: z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() }).optional(),
  state: z.enum(["pending", "running", "completed", "failed", "cancelled", "interrupted"]),
  attempts: z.number().int().nonnegative().default(0),
  /** Where this unit's `rlenv run` writes (`--runs`), relative to the job folder. */
  runs_dir: z.string(),
  /** Process group of a local unit, to end a stale one after a runner restart. */
  pgid: z.number().int().optional(),
  slurm_job_id: z.number().int().optional(),
  /**
   * An elastic shard submitted held, with the nodes it must avoid, until the runner has set
   * them and released it (a runner that stopped in between does it on its restart).
   */
  release_pending: z.array(z.string()).optional(),
  /** An elastic shard's rollouts: sample numbers by task. */
  samples: z.record(z.string(), z.array(z.number().int().nonnegative())).optional(),
  /** The node its Slurm task ran on. */
  node: z.string().optional(),
  exit_code: z.number().int().nullable().optional(),
  error: z.string().optional(),
  /** Replaced by another unit (a resumed remainder, a resubmitted shard); see `keep`. */
  superseded_by: z.string().optional(),
  /** What of a superseded unit's output the merged run keeps: its finished rollouts, or nothing. */
  keep: z.enum(["all", "finished", "none"]).default("all"),
});
export type WorkUnit = z.infer<typeof WorkUnit>;

/** What the runner keeps and reports for one job (`GET /v1/jobs/:id`). */
export const JobRecord = z.object({
  id: z.string(),
  name: z.string().optional(),
  state: JobState,
  created: z.string(),
  started: z.string().optional(),
  ended: z.string().optional(),
  env: z.object({ name: z.string(), hash: z.string(), domain: z.string(), tasks: z.number().int() }),
  spec: JobSpec,
  idempotency_key: z.string().optional(),
  progress: JobProgress,
  units: z.array(WorkUnit),
  /** Times the runner restarted under this job. */
  interruptions: z.number().int().nonnegative().default(0),
  error: z.string().optional(),
  /** The merged run folder's id (`pull` writes it to runs/<run_id>). */
  run_id: z.string(),
});
export type JobRecord = z.infer<typeof JobRecord>;

export const RolloutEnd = z.object({
  task: z.string(),
  sample: z.number().int(),
  status: z.string(),
  reward: z.number().nullable(),
  file: z.string().describe("Path inside the run folder"),
  unit: z.string(),
});
export type RolloutEnd = z.infer<typeof RolloutEnd>;

/**
 * The wire spells it `utilisation`, as the rest of the product does; runners from before the
 * change sent `utilization`, which is still read.
 */
function oldSpelling(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v) || "utilisation" in v || !("utilization" in v)) return v;
  const { utilization, ...rest } = v as { utilization: unknown };
  return { ...rest, utilisation: utilization };
}

/** One Server-Sent Event of `GET /v1/jobs/:id/events`; `id` is the SSE id (Last-Event-ID resumes after it). */
export const JobEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("state"), id: z.number().int(), t: z.number(), state: JobState, reason: z.string().optional() }),
  z.object({ type: z.literal("progress"), id: z.number().int(), t: z.number(), ...JobProgress.shape, rate: z.number().optional() }),
  z.object({ type: z.literal("rollout-end"), id: z.number().int(), t: z.number(), ...RolloutEnd.shape }),
  z.object({ type: z.literal("log"), id: z.number().int(), t: z.number(), unit: z.string().optional(), line: z.string() }),
  z.object({
    type: z.literal("gpu"),
    id: z.number().int(),
    t: z.number(),
    gpus: z.array(z.preprocess(oldSpelling, z.object({ index: z.number().int(), utilisation: z.number(), memory_used_mib: z.number() }))),
  }),
]);
export type JobEvent = z.infer<typeof JobEvent>;
export type JobEventInput = JobEvent extends infer E ? (E extends JobEvent ? Omit<E, "id" | "t"> : never) : never;

export const GpuInfo = z.preprocess(
  oldSpelling,
  z.object({
    index: z.number().int(),
    name: z.string(),
    memory_total_mib: z.number(),
    memory_used_mib: z.number(),
    utilisation: z.number().describe("Percent, 0–100"),
  }),
);
export type GpuInfo = z.infer<typeof GpuInfo>;

export const Health = z.object({
  ok: z.boolean(),
  version: z.string(),
  docker: z.object({ available: z.boolean(), detail: z.string().optional() }),
  gpus: z.array(GpuInfo),
  gpu_error: z.string().optional(),
  capacity: z.object({ concurrent_jobs: z.number().int(), running: z.number().int() }),
  queue: z.number().int(),
  executors: z.array(z.string()),
});
export type Health = z.infer<typeof Health>;

/**
 * `GET /v1/status`: what a pool's client places shards by and takes as the runner's
 * heartbeat. Cheap to answer (no Docker probe; GPUs from a sample at most a few seconds old).
 */
export const RunnerStatus = z.object({
  ok: z.boolean(),
  version: z.string(),
  /** The runner's clock (ms since the epoch) when it answered. */
  time: z.number(),
  slots: z.object({ total: z.number().int(), running: z.number().int(), free: z.number().int() }),
  /** Jobs waiting for a slot. */
  queue: z.number().int(),
  gpus: z.object({
    count: z.number().int(),
    /** GPUs below 10% utilisation at the last sample. */
    idle: z.number().int(),
  }),
  cpus: z.number().int(),
});
export type RunnerStatus = z.infer<typeof RunnerStatus>;

export const ApiError = z.object({ error: z.string(), field: z.string().optional() });
export type ApiError = z.infer<typeof ApiError>;

/** Names used in bundle tars. */
export const BUNDLE_JOB_FILE = "job.json";
export const BUNDLE_ENV_DIR = "env";
