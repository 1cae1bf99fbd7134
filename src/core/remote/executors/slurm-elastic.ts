import { mkdirSync } from "node:fs";
import path from "node:path";
import { samplesOf } from "../../rollout/run-environment";
import { rolloutId } from "../../rollout/ids";
import type { SlurmOptions, WorkUnit } from "../api";
import type { ExecutionContext } from "../jobs/executor";
import { shuttingDown, unitEnded } from "../jobs/executor";
import { jobTaskIds, keptRollouts } from "../jobs/remainder";
import { unitFinishedRun, unitRequest, writeUnitRequest } from "./unit-request";
import { hasFinished } from "../jobs/rollout-watch";
import { shq } from "../../util/shell-quote";
import { cancelEach, SLURM_DONE, type SlurmClient, type SlurmNode, type SlurmTaskState } from "./slurm-client";
import type { SlurmControl } from "./slurm-control";
import { PollFailures, pollSleep } from "./slurm-poll";
import { execLast, NOTE_STOP } from "./slurm-script";

/** Failed shards on one node after which later shards of the job keep off it. */
export const NODE_FAILURES_TO_EXCLUDE = 2;

/** Nodes of the partition that can take a shard now: idle, or running something with CPUs to spare. */
export function nodesWithRoom(nodes: readonly SlurmNode[], partition: string | undefined, excluded: ReadonlySet<string>): string[] {
  return (
    nodes
      .filter((n) => !excluded.has(n.name))
      .filter((n) => (partition ? n.partitions.includes(partition) : true))
      // A flag (drain, maint, reserved, not responding…) takes a node out, whatever its base state.
      .filter((n) => n.state === "idle" || (n.state === "mixed" && n.allocCpus < n.cpus))
      .map((n) => n.name)
  );
}

/** Nodes where this job's shards failed at least `limit` times. */
export function nodesToExclude(units: readonly WorkUnit[], limit = NODE_FAILURES_TO_EXCLUDE): string[] {
  const failures = new Map<string, number>();
  for (const u of units) if (u.state === "failed" && u.node) failures.set(u.node, (failures.get(u.node) ?? 0) + 1);
  return [...failures.entries()]
    .filter(([, n]) => n >= limit)
    .map(([node]) => node)
    .sort();
}

/**
 * How many shards to add now: as many as the backlog fills (at `chunk` rollouts each) and
 * the partition has room for, less shards already waiting in Slurm, within `maxShards`
 * active; at least one when nothing runs at all (it queues until a node frees up).
 */
export function shardsToAdd(o: {
  backlog: number;
  chunk: number;
  room: number;
  waiting: number;
  active: number;
  maxShards: number;
}): number {
  if (o.backlog <= 0) return 0;
  const wanted = Math.ceil(o.backlog / Math.max(1, o.chunk));
  const free = Math.min(o.room - o.waiting, o.maxShards - o.active);
  return Math.max(o.active === 0 ? 1 : 0, Math.min(wanted, free));
}

interface Ref {
  key: string;
  task: string;
  sample: number;
}

/**
 * The elastic Slurm executor's loop for one job: shards are made while the job runs, each
 * a few rollouts (its samples named), as many at a time as the partition has idle nodes
 * for; a shard's node is freed when its rollouts are done. A failed shard's unfinished
 * rollouts go back to the backlog (its finished ones are kept), and a node that failed two
 * of the job's shards is excluded from its later ones.
 */
export async function runElastic(
  ctx: ExecutionContext,
  deps: {
    client: SlurmClient;
    control: SlurmControl;
    partition?: string;
    pollMs: number;
    environment?: Record<string, string>;
  },
): Promise<void> {
  const job = ctx.job();
  const opts: SlurmOptions = job.spec.slurm ?? { shards: 1, gpus_per_shard: 0, max_retries: 2, elastic: true };
  const partition = opts.partition ?? deps.partition;
  const config = job.spec.config;
  const all: Ref[] = jobTaskIds(ctx.envDir, job).flatMap((task) =>
    samplesOf(task, config).map((sample) => ({ key: rolloutId(task, sample), task, sample })),
  );
  try {
    await elasticLoop(ctx, deps, opts, partition, all);
  } catch (e) {
    // A job that fails must not leave its shards running (and holding nodes) in Slurm.
    if (!shuttingDown(ctx.signal))
      await cancelActive(ctx, deps.client).catch((c: Error) => ctx.log(`could not cancel the job's Slurm jobs: ${c.message}`));
    throw e;
  }
}

async function elasticLoop(
  ctx: ExecutionContext,
  deps: Parameters<typeof runElastic>[1],
  opts: SlurmOptions,
  partition: string | undefined,
  all: readonly Ref[],
): Promise<void> {
  let chunk = opts.rollouts_per_shard;
  const maxShards = opts.max_shards ?? Number.POSITIVE_INFINITY;
  const unread = new PollFailures();
  for (;;) {
    if (ctx.signal.aborted) {
      // A runner restart leaves the shards to run; the next runner re-adopts them.
      if (shuttingDown(ctx.signal))
        return ctx.log("runner stopping: the job's shards live on in Slurm; the restarted runner re-adopts them");
      return cancelActive(ctx, deps.client);
    }
    let nodes: Awaited<ReturnType<SlurmClient["nodes"]>>;
    try {
      await releaseLeftHeld(ctx, deps);
      await refreshStates(ctx, deps.client);
      nodes = await deps.client.nodes();
      unread.ok();
    } catch (e) {
      unread.failed(e, (line) => ctx.log(line));
      await pollSleep(deps.pollMs, ctx.signal);
      continue;
    }
    const units = ctx.job().units;
    const failedForGood = units.find((u) => u.state === "failed" && !u.superseded_by);
    if (failedForGood) return cancelActive(ctx, deps.client);
    const active = units.filter((u) => !unitEnded(u));
    const backlog = backlogOf(ctx, all);
    if (backlog.length === 0 && active.length === 0) return;
    const excluded = nodesToExclude(units);
    const room = nodesWithRoom(nodes, partition, new Set(excluded)).length;
    chunk ??= Math.max(1, Math.ceil(all.length / Math.max(1, 2 * room)));
    const waiting = active.filter((u) => u.state === "pending").length;
    const n = shardsToAdd({ backlog: backlog.length, chunk, room, waiting, active: active.length, maxShards });
    if (n > 0) {
      // A rollout placed past max_retries + 1 times fails the job rather than loop.
      const tries = new Map<string, number>();
      for (const u of units) for (const r of refsOf(u)) tries.set(r, (tries.get(r) ?? 0) + 1);
      const over = backlog.find((r) => (tries.get(r.key) ?? 0) > opts.max_retries);
      if (over) {
        const last = [...units].reverse().find((u) => refsOf(u).includes(over.key));
        ctx.update((j) => {
          const u = j.units.find((x) => x.id === last?.id);
          if (u) delete u.superseded_by;
        });
        ctx.log(`rollout ${over.key} failed on ${tries.get(over.key)} shard(s): the job fails`);
        return cancelActive(ctx, deps.client);
      }
      const shares = Array.from({ length: n }, (_, i) => backlog.slice(i * chunk!, (i + 1) * chunk!)).filter((s) => s.length > 0);
      ctx.log(
        `elastic: backlog ${backlog.length} rollout(s), ${room} node(s) with room${excluded.length ? ` (excluded: ${excluded.join(",")})` : ""}, ${active.length} shard(s) active: adding ${shares.length}`,
      );
      await submitShards(ctx, deps, shares, tries, excluded, partition);
    }
    await pollSleep(deps.pollMs, ctx.signal);
  }
}

function refsOf(u: WorkUnit): string[] {
  return Object.entries(u.samples ?? {}).flatMap(([task, samples]) => samples.map((s) => rolloutId(task, s)));
}

/** Rollouts no shard covers: neither finished (kept) nor in a shard that is waiting, running or done. */
function backlogOf(ctx: ExecutionContext, all: readonly Ref[]): Ref[] {
  const job = ctx.job();
  const covered = new Set(job.units.filter((u) => !u.superseded_by && u.state !== "failed").flatMap(refsOf));
  const failed = job.units.filter((u) => u.superseded_by !== undefined);
  if (failed.length > 0) {
    // What failed shards finished stays: read from their folders.
    for (const r of keptRollouts(job, (u) => ctx.unitRunsDir(u)))
      if (hasFinished(r) && r.task !== undefined && r.sample !== undefined && failed.some((u) => u.id === r.unit))
        covered.add(rolloutId(r.task, r.sample));
  }
  return all.filter((r) => !covered.has(r.key));
}

async function refreshStates(ctx: ExecutionContext, client: SlurmClient): Promise<void> {
  const active = ctx.job().units.filter((u) => !unitEnded(u) && u.slurm_job_id !== undefined);
  const byJob = new Map<number, SlurmTaskState[]>();
  for (const id of new Set(active.map((u) => u.slurm_job_id as number))) byJob.set(id, await client.tasks(id));
  for (const unit of active) {
    const index = unit.shard?.index ?? 0;
    const task = (byJob.get(unit.slurm_job_id as number) ?? []).find((t) => t.arrayTaskId === index);
    if (!task) continue;
    const patch: Partial<WorkUnit> = task.node ? { node: task.node } : {};
    if (!SLURM_DONE.has(task.state)) {
      if (task.state === "RUNNING" && unit.state !== "running") patch.state = "running";
    } else {
      const exit = task.exitCode >> 8;
      if (task.state === "COMPLETED" || (task.state === "FAILED" && exit === 1 && unitFinishedRun(ctx.unitRunsDir(unit)))) {
        Object.assign(patch, { state: "completed", exit_code: exit });
        ctx.log(`shard ${unit.id} completed on ${task.node ?? "?"}`, unit.id);
      } else {
        // Its unfinished rollouts go back to the backlog; what it finished is kept.
        Object.assign(patch, {
          state: "failed",
          exit_code: exit,
          keep: "finished",
          superseded_by: "backlog",
          error: `${task.state} (exit ${exit})`,
        });
        ctx.log(
          `shard ${unit.id} ended ${task.state} (exit ${exit}) on ${task.node ?? "?"}: its unfinished rollouts go back to the backlog`,
          unit.id,
        );
      }
    }
    if (Object.keys(patch).length > 0)
      ctx.update((j) => {
        const u = j.units.find((x) => x.id === unit.id);
        if (u) Object.assign(u, patch);
      });
  }
}

/**
 * Shards submitted held whose release was never recorded: the runner stopped between the
 * submit and the release, and Slurm would keep them waiting for good. Their exclusions are
 * set and they are released now; one no longer pending (cancelled, say) is only marked.
 */
export async function releaseLeftHeld(
  ctx: ExecutionContext,
  deps: { client: Pick<SlurmClient, "tasks">; control: Pick<SlurmControl, "excludeAndRelease"> },
): Promise<void> {
  const held = ctx.job().units.filter((u) => !unitEnded(u) && u.release_pending !== undefined && u.slurm_job_id !== undefined);
  for (const jobId of new Set(held.map((u) => u.slurm_job_id as number))) {
    const nodes = held.find((u) => u.slurm_job_id === jobId)?.release_pending ?? [];
    if ((await deps.client.tasks(jobId)).some((t) => t.state === "PENDING")) {
      await deps.control.excludeAndRelease(jobId, nodes);
      ctx.log(
        `Slurm job ${jobId} was still held (the runner stopped between its submit and its release): released${nodes.length ? `, excluding ${nodes.join(",")}` : ""}`,
      );
    }
    releaseRecorded(ctx, jobId);
  }
}

/** The job's shards of this Slurm job are released: nothing is left to do for them on a restart. */
function releaseRecorded(ctx: ExecutionContext, jobId: number): void {
  ctx.update((j) => {
    for (const u of j.units) if (u.slurm_job_id === jobId) delete u.release_pending;
  });
}

/** One held array for the new shards: index i runs unit i's samples; exclusions are set before it is released. */
async function submitShards(
  ctx: ExecutionContext,
  deps: { client: SlurmClient; control: SlurmControl; environment?: Record<string, string> },
  shares: Ref[][],
  tries: Map<string, number>,
  excluded: string[],
  partition: string | undefined,
): Promise<void> {
  const job = ctx.job();
  const opts = job.spec.slurm;
  const first = job.units.length;
  const units = elasticUnits(shares, first, tries);
  writeShardRequests(ctx, units);
  const logDir = path.join(ctx.jobDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const script = elasticScript(ctx, units);
  const jobId = await deps.client.submit({
    name: `rlenv-${ctx.jobId}`,
    script,
    cwd: ctx.jobDir,
    stdout: path.join(logDir, `elastic-${first}-%a.log`),
    array: `0-${units.length - 1}`,
    ...(partition ? { partition } : {}),
    ...(opts && opts.gpus_per_shard > 0 ? { gres: `gpu:${opts.gpus_per_shard}` } : {}),
    ...(opts?.time_limit_min ? { timeLimitMin: opts.time_limit_min } : {}),
    hold: excluded.length > 0,
    environment: {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      ...deps.environment,
      RLENV_JOB: ctx.jobId,
    },
  });
  ctx.update((j) => {
    j.units.push(...units.map((u) => ({ ...u, slurm_job_id: jobId, ...(excluded.length > 0 ? { release_pending: excluded } : {}) })));
  });
  if (excluded.length > 0) {
    try {
      await deps.control.excludeAndRelease(jobId, excluded);
      releaseRecorded(ctx, jobId);
    } catch (e) {
      ctx.log(`could not exclude ${excluded.join(",")} from Slurm job ${jobId}: ${(e as Error).message}; it is cancelled`);
      await deps.client.cancel(jobId);
      throw e;
    }
  }
  ctx.log(
    `submitted Slurm array job ${jobId}: shards ${units.map((u) => u.id).join(",")}${excluded.length ? `, excluding ${excluded.join(",")}` : ""}`,
  );
}

/** The new shards as work units: unit i takes share i's samples, its attempt one past the most any of them was tried. */
function elasticUnits(shares: Ref[][], first: number, tries: Map<string, number>): WorkUnit[] {
  return shares.map((refs, i) => {
    const samples: Record<string, number[]> = {};
    for (const r of refs) {
      const list = samples[r.task] ?? [];
      list.push(r.sample);
      samples[r.task] = list;
    }
    return {
      id: `e${first + i}`,
      shard: { index: i, count: shares.length },
      samples,
      state: "pending",
      attempts: 1 + Math.max(0, ...refs.map((r) => tries.get(r.key) ?? 0)),
      runs_dir: path.join("units", `e${first + i}`, "runs"),
      keep: "all",
    };
  });
}

/** Each shard's request (its own samples of the job's config) in its folder, read by the script. */
function writeShardRequests(ctx: ExecutionContext, units: WorkUnit[]): void {
  const { tasks: _t, samples: _s, ...config } = ctx.job().spec.config;
  for (const u of units) {
    const runs = ctx.unitRunsDir(u);
    mkdirSync(runs, { recursive: true });
    const request = unitRequest(ctx.envDir, runs, config, { samples: u.samples }, ctx.policyBaseUrl);
    writeUnitRequest(request, path.join(path.dirname(runs), "request.json"));
  }
}

/** The array's script: task i runs unit i's request. */
function elasticScript(ctx: ExecutionContext, units: WorkUnit[]): string {
  return [
    "#!/bin/bash",
    NOTE_STOP,
    `units=(${units.map((u) => u.id).join(" ")})`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array lookup, not a template
    "u=${units[$SLURM_ARRAY_TASK_ID]}",
    `dir=${shq(path.join(ctx.jobDir, "units"))}/$u`,
    `cd ${shq(process.cwd())}`,
    'echo "rlenv elastic shard $u on $(hostname) CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"',
    ...execLast(`${ctx.rlenvCommand.map(shq).join(" ")} run --request "$dir/request.json"`),
    "",
  ].join("\n");
}

async function cancelActive(ctx: ExecutionContext, client: SlurmClient): Promise<void> {
  const ids = new Set(
    ctx
      .job()
      .units.filter((u) => !unitEnded(u))
      .map((u) => u.slurm_job_id)
      .filter((x): x is number => x !== undefined),
  );
  const failures = await cancelEach(client, ids);
  ctx.update((j) => {
    for (const u of j.units) if (!unitEnded(u)) u.state = "cancelled";
  });
  if (failures.length > 0) throw new Error(`Slurm refused to cancel: ${failures.join("; ")}`);
}
