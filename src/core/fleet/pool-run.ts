import { copyFileSync, mkdirSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { type JobRequest, jobSpec } from "../app/submit-job";
import { loadEnvironment } from "../environment/load-environment";
import type { JobSpecInput, RolloutEnd } from "../remote/api";
import { isFinished, type RolloutFileState, RolloutWatcher } from "../remote/jobs/rollout-watch";
import { closeRunRecord, openRunRecord } from "../rollout/run-record";
import { newRunId, rolloutId } from "../rollout/ids";
import { samplesOf, selectTasks } from "../rollout/run-environment";
import { ROLLOUTS_DIR, SUMMARY_FILE, summarizeRunDir, writeJsonAtomic } from "../runs/run-dir";
import { RunConfig, type RunRecord } from "../schema/run";
import type { Environment } from "../model/environment";
import { Heartbeats } from "./heartbeat";
import { memberWeight, placeRollouts, type RolloutRef, samplesConfig } from "./placement";
import type { LoadedPool, PoolMember } from "./pool-config";
import { type Failover, POOL_FILE, type PoolRecord, type ShardRecord } from "./pool-record";
import { RolloutClaims } from "./rollout-claims";

export interface PoolRunOptions {
  pool: LoadedPool;
  envDir: string;
  /** The job as for one runner; its executor must be local (each member runs its shard itself). */
  request: JobRequest;
  runsDir: string;
  runId?: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** After every change of what is kept or where things run. */
  onProgress?: (p: PoolRecord) => void;
  /** How often shards are looked at (default 200 ms). */
  tickMs?: number;
  /** Keep each shard's pulled folder (under runs/.pool/<run id>) after a complete run. */
  keepShards?: boolean;
}

export interface PoolRunResult {
  runDir: string;
  record: PoolRecord;
}

interface ShardRun {
  rec: ShardRecord;
  member: PoolMember;
  keys: Set<string>;
  dir: string;
  /** Still counted on for its rollouts; false once ended or given up on. */
  live: boolean;
  /** The submit and pull are over (resolved or failed). */
  settled: boolean;
  error?: string;
  finalState?: string;
  startedAt: number;
  /** When its member accepted it: a shard is quiet from then until its first rollout ends. */
  acceptedAt?: number;
  lastArrival?: number;
  pull: AbortController;
}

/**
 * Runs one job over a pool's members and merges it into one run folder. The rollouts are
 * split by each member's reported capacity; each share is a job on that member (its samples
 * named, so a rollout keeps its number wherever it runs), followed and pulled rollout by
 * rollout. A shard whose member stops answering, or that ends no rollout for `stall_s` while
 * other shards do, is cancelled there (as far as the member still listens) and what it had
 * not finished is placed again on the others. Each rollout lands in the merged folder once:
 * the first finished copy; a later one is recorded in pool.json's `duplicates`.
 */
export async function runOnPool(opts: PoolRunOptions): Promise<PoolRunResult> {
  if (opts.request.executor !== "local") throw new Error("a pool job runs each shard with its member's local executor: --executor local");
  const job = new PoolJob(opts, planPoolRun(opts));
  await job.run();
  return job.close();
}

/** What a pool run starts from: the job's spec, every rollout it owes, and where its run folder and shards' copies go. */
interface PoolRunPlan {
  env: Environment;
  baseSpec: JobSpecInput;
  all: RolloutRef[];
  runId: string;
  runDir: string;
  staging: string;
  runRecord: RunRecord;
}

function planPoolRun(opts: PoolRunOptions): PoolRunPlan {
  const { env, problems } = loadEnvironment(opts.envDir);
  const first = problems.find((p) => p.severity === "error");
  if (!env || first)
    throw new Error(`${first?.file ?? opts.envDir}:${first?.line ?? 1}: ${first?.message ?? "does not load"} (run rlenv validate)`);
  const baseSpec = jobSpec(opts.request);
  const config = RunConfig.parse(baseSpec.config);
  const all: RolloutRef[] = selectTasks(env, config).flatMap((t) =>
    samplesOf(t.id, config).map((sample) => ({ key: rolloutId(t.id, sample), task: t.id, sample })),
  );
  const runId = opts.runId ?? newRunId(env.manifest.name);
  const runsDir = path.resolve(opts.runsDir);
  const runDir = path.join(runsDir, runId);
  const staging = path.join(runsDir, ".pool", runId);
  const runRecord: RunRecord = openRunRecord({ env, config, runId, runDir, runsDir, resumed: null });
  return { env, baseSpec, all, runId, runDir, staging, runRecord };
}

/** One pool run in progress: its shards, the rollouts kept, the members' heartbeats. */
class PoolJob {
  private readonly pool: LoadedPool;
  private readonly log: (line: string) => void;
  private readonly signal: AbortSignal;
  private readonly heartbeatMs: number;
  private readonly stallMs: number;
  private readonly claims: RolloutClaims;
  private readonly outRollouts: string;
  private readonly hb: Heartbeats;
  private readonly shards: ShardRun[] = [];
  private readonly failovers: Failover[] = [];
  private readonly unexpected: string[] = [];
  /** Members this job gave up on for stalling: no more of its shards go there. */
  private readonly stalled = new Set<string>();
  /** Times each rollout was placed: past max_failovers + 1 the job fails rather than loop. */
  private readonly placements = new Map<string, number>();
  private state: PoolRecord["state"] = "running";
  /** Since when no member could take pending rollouts. */
  private noneSince: number | undefined;
  private error: string | undefined;
  private readonly watcher: RolloutWatcher;

  constructor(
    private readonly opts: PoolRunOptions,
    private readonly plan: PoolRunPlan,
  ) {
    this.pool = opts.pool;
    this.log = opts.log ?? (() => {});
    this.signal = opts.signal ?? new AbortController().signal;
    this.heartbeatMs = this.pool.settings.heartbeat_s * 1000;
    this.stallMs = this.pool.settings.stall_s * 1000;
    this.claims = new RolloutClaims(new Set(plan.all.map((r) => r.key)));
    this.outRollouts = path.join(plan.runDir, ROLLOUTS_DIR);
    this.hb = new Heartbeats(this.pool.members, this.heartbeatMs);
    this.watcher = new RolloutWatcher(
      () => this.shards.map((s) => ({ id: s.rec.id, dir: s.dir })),
      (end, st) => this.onRolloutEnd(end, st),
      0,
    );
  }

  private record(): PoolRecord {
    return {
      pool: this.pool.name,
      run_id: this.plan.runId,
      state: this.state,
      ...(this.error ? { error: this.error } : {}),
      rollouts: { expected: this.plan.all.length, kept: this.claims.size },
      members: this.hb.snapshot(this.stalled),
      shards: this.shards.map((s) => ({ ...s.rec })),
      failovers: [...this.failovers],
      duplicates: [...this.claims.duplicates],
      unexpected: [...this.unexpected],
    };
  }

  /** A shard's rollout ended: the first finished copy is kept in the merged folder, a later one recorded. */
  private onRolloutEnd(end: RolloutEnd, st: RolloutFileState): void {
    const { claims } = this;
    const shard = this.shards.find((s) => s.rec.id === end.unit);
    if (!shard || !isFinished(end.status)) return;
    shard.lastArrival = Date.now();
    const key = rolloutId(end.task, end.sample);
    const verdict = claims.offer(key, { shard: shard.rec.id, member: shard.member.name, file: st.file, at: Date.now() });
    if (verdict === "kept") {
      copyFileSync(st.file, path.join(this.outRollouts, `${key}.jsonl`));
      shard.rec.kept += 1;
    } else if (verdict === "duplicate") {
      const kept = claims.get(key);
      this.log(
        `rollout ${key} finished again on ${shard.member.name} (${shard.rec.id}); the first copy, from ${kept?.member} (${kept?.shard}), is kept`,
      );
    } else {
      this.unexpected.push(`${shard.rec.id}:${st.rel}`);
    }
  }

  private startShard(member: PoolMember, refs: RolloutRef[]): void {
    const id = `s${this.shards.length}`;
    const { tasks, samples } = samplesConfig(refs);
    const { baseSpec, runId, staging } = this.plan;
    const spec = {
      ...baseSpec,
      name: `${this.pool.name}/${runId}/${id}`,
      config: { ...baseSpec.config, tasks, samples },
    };
    const shard: ShardRun = {
      rec: { id, member: member.name, rollouts: refs.length, kept: 0, state: "submitting", started: new Date().toISOString() },
      member,
      keys: new Set(refs.map((r) => r.key)),
      dir: path.join(staging, id),
      live: true,
      settled: false,
      startedAt: Date.now(),
      pull: new AbortController(),
    };
    for (const r of refs) this.placements.set(r.key, (this.placements.get(r.key) ?? 0) + 1);
    this.shards.push(shard);
    mkdirSync(shard.dir, { recursive: true });
    this.log(`${id}: ${refs.length} rollout(s) of ${tasks.length} task(s) → ${member.name}`);
    void this.follow(shard, spec);
  }

  /** Submits a shard to its member and pulls it as its rollouts end, until its job ends there. */
  private async follow(shard: ShardRun, spec: JobSpecInput): Promise<void> {
    const { member } = shard;
    try {
      const { job } = await member.client.submit(this.opts.envDir, spec, `${this.plan.runId}-${shard.rec.id}`);
      shard.rec.job_id = job.id;
      shard.acceptedAt = Date.now();
      if (!shard.live) {
        // Given up on while its upload was on the way: it must not run there.
        await member.client.cancelWithin(job.id, 5000).catch(() => {});
        return;
      }
      shard.rec.state = "running";
      const r = await member.client.pull(job.id, shard.dir, { follow: true, signal: shard.pull.signal });
      shard.finalState = r.state;
    } catch (e) {
      if (!shard.pull.signal.aborted) shard.error = (e as Error).message;
    } finally {
      shard.settled = true;
    }
  }

  /** Gives a shard up: cancelled on its member as far as it listens; its pull goes on, so a late copy is still seen (and recorded). */
  private abandon(shard: ShardRun, reason: string): void {
    shard.live = false;
    shard.rec.state = "abandoned";
    shard.rec.reason = reason;
    shard.rec.ended = new Date().toISOString();
    const unfinished = [...shard.keys].filter((k) => !this.claims.has(k)).length;
    this.failovers.push({ shard: shard.rec.id, member: shard.member.name, reason, at: shard.rec.ended, unfinished });
    this.log(`${shard.rec.id} on ${shard.member.name}: ${reason}; ${unfinished} unfinished rollout(s) go to other members`);
    const jobId = shard.rec.job_id;
    if (jobId)
      shard.member.client
        .cancelWithin(jobId, 5000)
        .catch((e: Error) => this.log(`${shard.rec.id}: cancel on ${shard.member.name} failed: ${e.message}`));
  }

  private tick(): void {
    this.watcher.scan();
    const now = Date.now();
    for (const s of this.shards) if (s.live) this.checkShard(s, now);
    if (!this.claims.complete) this.placePending(now);
  }

  /** A live shard that ended, whose member went down, or that stalled while others progressed. */
  private checkShard(s: ShardRun, now: number): void {
    const { pool, stallMs } = this;
    const unfinished = [...s.keys].some((k) => !this.claims.has(k));
    if (s.settled) {
      s.live = false;
      s.rec.state = s.error ? "failed" : "ended";
      s.rec.ended = new Date().toISOString();
      if (s.finalState) s.rec.job_state = s.finalState;
      if (s.error) s.rec.reason = s.error;
      if (unfinished)
        this.log(`${s.rec.id} on ${s.member.name} ended (${s.error ?? s.finalState}) with rollouts unfinished: they are placed again`);
      return;
    }
    if (this.hb.isDown(s.member.name, now)) {
      this.abandon(s, `runner ${s.member.name} stopped answering (no heartbeat for ${pool.settings.heartbeat_s} s)`);
      return;
    }
    // Quiet since its last rollout ended, or since its member accepted it (an upload still on the way is not a stall).
    const quietSince = s.lastArrival ?? s.acceptedAt;
    const othersProgress = this.shards.some((o) => o !== s && o.lastArrival !== undefined && now - o.lastArrival < stallMs);
    if (unfinished && quietSince !== undefined && now - quietSince > stallMs && othersProgress) {
      this.stalled.add(s.member.name);
      this.abandon(s, `stalled: no rollout ended for ${pool.settings.stall_s} s while other shards progressed`);
    }
  }

  /** The rollouts neither kept nor on a live shard, placed on the members that are up, by their weight. */
  private placePending(now: number): void {
    const { pool, hb, placements } = this;
    const assigned = new Set(this.shards.filter((s) => s.live).flatMap((s) => [...s.keys]));
    const pending = this.plan.all.filter((r) => !this.claims.has(r.key) && !assigned.has(r.key));
    if (pending.length === 0) return;
    // Placement waits until every member answered once or its deadline passed.
    if (!pool.members.every((m) => hb.settled(m.name, now))) return;
    const over = pending.find((r) => (placements.get(r.key) ?? 0) > pool.settings.max_failovers);
    if (over)
      throw new Error(
        `rollout ${over.key} was placed ${placements.get(over.key)} times without finishing (max_failovers ${pool.settings.max_failovers})`,
      );
    const candidates = this.candidates(now);
    if (candidates.length === 0) {
      this.noneSince ??= now;
      // Members get a while to come back (a restarted runner) before the job gives up.
      if (!this.shards.some((s) => s.live) && now - this.noneSince > Math.max(3 * this.heartbeatMs, 30_000))
        throw new Error(
          `no member of pool ${pool.name} can take the ${pending.length} unfinished rollout(s): ${hb
            .snapshot(this.stalled, now)
            .map((h) => `${h.name} ${h.state}${h.last_error ? ` (${h.last_error})` : ""}`)
            .join(", ")}`,
        );
      return;
    }
    this.noneSince = undefined;
    const hasGpus = candidates.some((m) => (hb.get(m.name)?.status?.gpus.count ?? 0) > 0);
    const weighted = candidates.map((m) => {
      const st = hb.get(m.name)?.status;
      return { member: m, weight: st ? memberWeight(st, hasGpus) : 0 };
    });
    for (const share of placeRollouts(pending, weighted)) this.startShard(share.member, share.rollouts);
  }

  /** The members that are up; one that stalled a shard gets work again only when no other member is up. */
  private candidates(now: number): PoolMember[] {
    const up = this.pool.members.filter((m) => !this.hb.isDown(m.name, now));
    const fresh = up.filter((m) => !this.stalled.has(m.name));
    return fresh.length > 0 ? fresh : up;
  }

  /** Ticks until every rollout is kept, the signal stops it, or the job fails. */
  async run(): Promise<void> {
    this.hb.start();
    let lastKept = -1;
    let lastShards = -1;
    let lastFailovers = -1;
    try {
      while (!this.claims.complete) {
        if (this.signal.aborted) {
          this.state = "cancelled";
          this.error = "cancelled";
          break;
        }
        this.tick();
        if (this.claims.size !== lastKept || this.shards.length !== lastShards || this.failovers.length !== lastFailovers) {
          lastKept = this.claims.size;
          lastShards = this.shards.length;
          lastFailovers = this.failovers.length;
          this.opts.onProgress?.(this.record());
        }
        if (this.claims.complete) break;
        await new Promise((r) => setTimeout(r, this.opts.tickMs ?? 200));
      }
      if (this.claims.complete) this.state = "completed";
    } catch (e) {
      this.state = "failed";
      this.error = (e as Error).message;
      this.log(`pool job failed: ${this.error}`);
    } finally {
      await this.stopShards();
    }
  }

  /** Shards still running (cancel, failure) are stopped; every pull ends. */
  private async stopShards(): Promise<void> {
    const { state } = this;
    for (const s of this.shards) {
      if (s.live && s.rec.job_id && state !== "completed") await s.member.client.cancelWithin(s.rec.job_id, 5000).catch(() => {});
      if (s.live) {
        s.live = false;
        s.rec.state = state === "completed" ? "ended" : "abandoned";
        s.rec.ended ??= new Date().toISOString();
      }
      s.pull.abort();
    }
    await this.hb.stop();
  }

  /** The merged folder's pool.json, run.json and summary; a complete run's shard copies removed. */
  close(): PoolRunResult {
    const { runDir, runRecord, staging } = this.plan;
    const { state } = this;
    const final = this.record();
    writeJsonAtomic(path.join(runDir, POOL_FILE), final);
    closeRunRecord(runDir, runRecord, state === "completed" ? "completed" : state === "cancelled" ? "cancelled" : "failed");
    writeJsonAtomic(path.join(runDir, SUMMARY_FILE), summarizeRunDir(runDir));
    if (state === "completed" && !this.opts.keepShards) {
      rmSync(staging, { recursive: true, force: true });
      // The shared .pool folder goes with its last run.
      try {
        rmdirSync(path.dirname(staging));
      } catch {
        // other pool runs still in it
      }
    }
    this.opts.onProgress?.(final);
    return { runDir, record: final };
  }
}
