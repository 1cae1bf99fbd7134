import path from "node:path";
import { loadEnvironment } from "../environment/load-environment";
import type { JobRecord, JobSpecInput } from "../remote/api";
import type { RunnerClient } from "../remote/client/client";
import type { RunConfig } from "../schema/run";

/** A job as a person asks for it, in plain values: the flags of `rlenv submit`, the editor's pickers. */
export interface JobRequest {
  name?: string;
  /** oracle, nop, openai or replay:FILE. */
  policy: string;
  model?: string;
  baseUrl?: string;
  tasks?: string[];
  k: number;
  concurrency: number;
  sandbox: RunConfig["sandbox"];
  executor: "local" | "slurm";
  /** Read when the executor is slurm (shards default to 1, GPUs to 0). */
  slurm?: {
    shards?: number;
    gpus?: number;
    partition?: string;
    retries?: number;
    elastic?: boolean;
    maxShards?: number;
    rolloutsPerShard?: number;
  };
  /** A policy server the job starts on the runner and waits for (`readyTimeoutS`: how long, default 600). */
  policyServer?: { command: string; port: number; readyTimeoutS?: number };
  /** openai: token-in/token-out, with the model's tokenizer folder on the runner host. */
  tokens?: boolean;
  tokenizer?: string;
  toolParser?: string;
}

/** The remote job spec, built the one way the CLI and the editor both send it. */
export function jobSpec(r: JobRequest): JobSpecInput {
  const [kind, replay] = r.policy.startsWith("replay:") ? ["replay", r.policy.slice("replay:".length)] : [r.policy, undefined];
  const slurm = r.executor === "slurm" || r.slurm ? (r.slurm ?? {}) : undefined;
  return {
    ...(r.name ? { name: r.name } : {}),
    executor: r.executor,
    config: {
      policy: {
        kind: kind as RunConfig["policy"]["kind"],
        ...(r.model ? { model: r.model } : {}),
        ...(r.baseUrl ? { base_url: r.baseUrl } : {}),
        ...(replay ? { replay } : {}),
        ...(r.tokens ? { tokens: true } : {}),
        ...(r.tokenizer ? { tokenizer: r.tokenizer } : {}),
        ...(r.toolParser ? { tool_parser: r.toolParser } : {}),
      },
      ...(r.tasks ? { tasks: r.tasks } : {}),
      k: r.k,
      concurrency: r.concurrency,
      sandbox: r.sandbox,
    },
    ...(slurm
      ? {
          slurm: {
            shards: slurm.shards ?? 1,
            gpus_per_shard: slurm.gpus ?? 0,
            ...(slurm.partition ? { partition: slurm.partition } : {}),
            ...(slurm.retries !== undefined ? { max_retries: slurm.retries } : {}),
            ...(slurm.elastic ? { elastic: true } : {}),
            ...(slurm.maxShards ? { max_shards: slurm.maxShards } : {}),
            ...(slurm.rolloutsPerShard ? { rollouts_per_shard: slurm.rolloutsPerShard } : {}),
          },
        }
      : {}),
    ...(r.policyServer
      ? {
          policy_server: {
            command: r.policyServer.command,
            port: r.policyServer.port,
            ...(r.policyServer.readyTimeoutS !== undefined ? { ready_timeout_s: r.policyServer.readyTimeoutS } : {}),
          },
        }
      : {}),
  };
}

export interface SubmitJobOptions {
  client: RunnerClient;
  envDir: string;
  request: JobRequest;
  /** A retried submit with the same key makes one job. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * Submits an environment with its job spec. An environment that does not load is refused here,
 * with the first error's place, before anything is uploaded.
 */
export async function submitJob(opts: SubmitJobOptions): Promise<{ job: JobRecord; created: boolean }> {
  const { env, problems } = loadEnvironment(opts.envDir);
  const first = problems.find((p) => p.severity === "error");
  if (!env || first)
    throw new Error(
      `${path.relative(process.cwd(), first?.file ?? opts.envDir)}:${first?.line ?? 1}:${first?.column ?? 1}: ${first?.message ?? "does not load"} (run rlenv validate)`,
    );
  opts.signal?.throwIfAborted();
  return opts.client.submit(opts.envDir, jobSpec(opts.request), opts.idempotencyKey);
}
