import type { Duplicate } from "./rollout-claims";
import type { MemberHealth } from "./heartbeat";

/** One shard of a pool job: a job on one member covering some of the rollouts. */
export interface ShardRecord {
  id: string;
  member: string;
  /** The job's id on that runner, once it accepted the shard. */
  job_id?: string;
  rollouts: number;
  /** Rollouts of this shard the merged run kept. */
  kept: number;
  state: "submitting" | "running" | "ended" | "failed" | "abandoned";
  /** For ended shards: the runner's final job state. */
  job_state?: string;
  reason?: string;
  started: string;
  ended?: string;
}

export interface Failover {
  shard: string;
  member: string;
  reason: string;
  at: string;
  /** Rollouts it had not finished, placed again on other members. */
  unfinished: number;
}

/** `pool.json` in a pool job's merged run folder: where each part ran, what moved, what came twice. */
export interface PoolRecord {
  pool: string;
  run_id: string;
  state: "running" | "completed" | "failed" | "cancelled";
  error?: string;
  rollouts: { expected: number; kept: number };
  members: MemberHealth[];
  shards: ShardRecord[];
  failovers: Failover[];
  /** Rollouts that finished on two shards: the first copy is the one in rollouts/. */
  duplicates: Duplicate[];
  /** Rollout files a member sent that are no part of the job (ignored). */
  unexpected: string[];
}

export const POOL_FILE = "pool.json";
