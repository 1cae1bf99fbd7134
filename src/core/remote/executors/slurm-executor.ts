import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SlurmOptions, WorkUnit } from "../api";
import type { ExecutionContext, Executor } from "../jobs/executor";
import { shuttingDown, unitEnded } from "../jobs/executor";
import { unitFinishedRun, unitRequest, unitRequestFile, writeUnitRequest } from "./unit-request";
import { shq } from "../../util/shell-quote";
import { cancelEach, inArrayRange, SLURM_DONE, type SlurmClient, type SlurmTaskState } from "./slurm-client";
import { SlurmControl } from "./slurm-control";
import { PollFailures, pollSleep } from "./slurm-poll";
import { execLast, LEAVE_IF_STOPPED, NOTE_STOP, runAndWait } from "./slurm-script";
import { runElastic } from "./slurm-elastic";

export interface SlurmExecutorOptions {
  client: SlurmClient;
  partition?: string;
  /** How often shard states are read. */
  pollMs?: number;
  /** PATH (and the like) the batch script runs with on the compute node. */
  environment?: Record<string, string>;
  /** `scontrol` for what slurmrestd cannot do (excluding nodes from an elastic job's later shards). */
  control?: SlurmControl;
}

/**
 * Runs a job as a Slurm array, one task per shard, each `rlenv run --shard i/N` writing
 * into the job's folder (which must be on a filesystem the compute nodes share). A
 * failed shard is resubmitted (a one-task array for that index) up to `max_retries`;
 * the merged run takes each shard's last attempt. DELETE cancels every Slurm job.
 */
export class SlurmExecutor implements Executor {
  /** Shards write on a shared folder, far from the runner: their ends are polled. */
  readonly reportsRolloutEnds = false;
  readonly kind = "slurm" as const;

  constructor(private readonly opts: SlurmExecutorOptions) {}

  plan(job: { spec: { slurm?: SlurmOptions | undefined } }): WorkUnit[] {
    // Elastic shards are made while the job runs, from its backlog and the idle nodes.
    if (job.spec.slurm?.elastic) return [];
    const n = job.spec.slurm?.shards ?? 1;
    return Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      shard: { index: i, count: n },
      state: "pending" as const,
      attempts: 0,
      runs_dir: path.join("units", `s${i}`, "a1"),
      keep: "all" as const,
    }));
  }

  async recover(ctx: ExecutionContext): Promise<void> {
    // Slurm jobs outlive the runner: units recorded running are simply watched again.
    ctx.log(`recovering: re-adopting ${ctx.job().units.filter((u) => u.state === "running").length} running shard(s) from Slurm`);
  }

  async execute(ctx: ExecutionContext): Promise<void> {
    const opts = ctx.job().spec.slurm ?? { shards: 1, gpus_per_shard: 0, max_retries: 2, elastic: false };
    if (opts.elastic)
      return runElastic(ctx, {
        client: this.opts.client,
        control: this.opts.control ?? new SlurmControl(),
        ...(this.opts.partition ? { partition: this.opts.partition } : {}),
        pollMs: this.opts.pollMs ?? 1000,
        ...(this.opts.environment ? { environment: this.opts.environment } : {}),
      });
    try {
      await this.watchShards(ctx, opts);
    } catch (e) {
      // A job that fails must not leave its shards running (and holding GPUs) in Slurm.
      if (!shuttingDown(ctx.signal))
        await this.cancelAll(ctx).catch((c: Error) => ctx.log(`could not cancel the job's Slurm jobs: ${c.message}`));
      throw e;
    }
    if (!ctx.signal.aborted) return;
    if (shuttingDown(ctx.signal)) {
      const live = ctx.job().units.filter((u) => !unitEnded(u)).length;
      ctx.log(`runner stopping: ${live} shard(s) live on in Slurm; the restarted runner re-adopts them`);
      return;
    }
    await this.cancelAll(ctx);
  }

  /** Submits the units not yet in Slurm and follows every shard until all ended, one failed for good, or the signal aborts. */
  private async watchShards(ctx: ExecutionContext, opts: SlurmOptions): Promise<void> {
    // Units not yet in Slurm; after a runner restart the others are watched, never submitted twice.
    const pending = ctx.job().units.filter((u) => u.state === "pending" && u.slurm_job_id === undefined);
    if (pending.length > 0) await this.submit(ctx, pending, 1);
    const pollMs = this.opts.pollMs ?? 1000;
    const unread = new PollFailures();
    while (!ctx.signal.aborted) {
      const running = ctx.job().units.filter((u) => !unitEnded(u));
      if (running.length === 0) return;
      let byJob: Map<number, SlurmTaskState[]>;
      try {
        byJob = await this.readTasks(running);
        unread.ok();
      } catch (e) {
        unread.failed(e, (line) => ctx.log(line));
        await pollSleep(pollMs, ctx.signal);
        continue;
      }
      const retry: WorkUnit[] = [];
      for (const unit of running) {
        const index = unit.shard?.index ?? 0;
        const tasks = unit.slurm_job_id === undefined ? [] : (byJob.get(unit.slurm_job_id) ?? []);
        const task =
          tasks.find((t) => t.arrayTaskId === index) ??
          tasks.find((t) => t.arrayTaskId === null && t.arrayTaskString !== undefined && inArrayRange(t.arrayTaskString, index));
        const state = task?.state ?? "UNKNOWN";
        if (!SLURM_DONE.has(state) && state !== "UNKNOWN") {
          if (unit.state !== "running" && state === "RUNNING") this.setUnit(ctx, unit.id, { state: "running" });
          continue;
        }
        const exit = task ? task.exitCode >> 8 : null;
        // Exit 1 with a summary written: some rollouts ended in error, recorded in their trajectories.
        if (state === "COMPLETED" || (state === "FAILED" && exit === 1 && unitFinishedRun(ctx.unitRunsDir(unit)))) {
          this.setUnit(ctx, unit.id, { state: "completed", exit_code: exit });
          ctx.log(`shard ${index} completed`, unit.id);
        } else if (unit.attempts <= opts.max_retries) {
          this.logTail(ctx, unit);
          ctx.log(
            `shard ${index} ended ${state}${exit !== null ? ` (exit ${exit})` : ""}: resubmitting (attempt ${unit.attempts + 1} of ${opts.max_retries + 1})`,
            unit.id,
          );
          retry.push(unit);
        } else {
          this.logTail(ctx, unit);
          this.setUnit(ctx, unit.id, {
            state: "failed",
            exit_code: exit,
            error: `shard ${index} ended ${state} after ${unit.attempts} attempt(s)`,
          });
          ctx.log(`shard ${index} failed for good: ${state}`, unit.id);
          // One shard failed past its retries: the job fails; the others are stopped.
          await this.cancelAll(ctx);
          return;
        }
      }
      for (const unit of retry) {
        const attempt = unit.attempts + 1;
        this.setUnit(ctx, unit.id, { runs_dir: path.join("units", unit.id, `a${attempt}`) });
        await this.submit(ctx, [unit], attempt);
      }
      await pollSleep(pollMs, ctx.signal);
    }
  }

  private async readTasks(units: WorkUnit[]): Promise<Map<number, SlurmTaskState[]>> {
    const byJob = new Map<number, SlurmTaskState[]>();
    for (const id of new Set(units.map((u) => u.slurm_job_id).filter((x): x is number => x !== undefined))) {
      byJob.set(id, await this.opts.client.tasks(id));
    }
    return byJob;
  }

  /** Cancels every Slurm job of the job, each tried a few times; the units left are marked cancelled. */
  private async cancelAll(ctx: ExecutionContext): Promise<void> {
    const ids = new Set(
      ctx
        .job()
        .units.map((u) => u.slurm_job_id)
        .filter((x): x is number => x !== undefined),
    );
    const failures = await cancelEach(this.opts.client, ids);
    ctx.update((job) => {
      for (const u of job.units) if (!unitEnded(u)) u.state = "cancelled";
    });
    if (failures.length > 0) throw new Error(`Slurm refused to cancel: ${failures.join("; ")}`);
  }

  /** One sbatch array for these units (all at the same attempt). */
  private async submit(ctx: ExecutionContext, units: WorkUnit[], attempt: number): Promise<void> {
    const job = ctx.job();
    const opts = job.spec.slurm ?? { shards: 1, gpus_per_shard: 0, max_retries: 2, elastic: false };
    for (const u of units) mkdirSync(ctx.unitRunsDir({ ...u, runs_dir: path.join("units", u.id, `a${attempt}`) }), { recursive: true });
    const count = units[0]?.shard?.count ?? 1;
    const logDir = path.join(ctx.jobDir, "logs");
    mkdirSync(logDir, { recursive: true });
    for (const u of units) this.writeRequest(ctx, u, count, attempt);
    const script = this.script(ctx, attempt);
    const jobId = await this.opts.client.submit({
      name: `rlenv-${ctx.jobId}`,
      script,
      cwd: ctx.jobDir,
      stdout: path.join(logDir, `shard-%a-a${attempt}.log`),
      array: units.map((u) => u.shard?.index ?? 0).join(","),
      ...((opts.partition ?? this.opts.partition) ? { partition: opts.partition ?? this.opts.partition } : {}),
      ...(opts.gpus_per_shard > 0 ? { gres: `gpu:${opts.gpus_per_shard}` } : {}),
      ...(opts.time_limit_min ? { timeLimitMin: opts.time_limit_min } : {}),
      environment: {
        PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        ...this.opts.environment,
        RLENV_JOB: ctx.jobId,
      },
    });
    ctx.log(`submitted Slurm array job ${jobId} (shards ${units.map((u) => u.shard?.index).join(",")}, attempt ${attempt})`);
    ctx.update((j) => {
      for (const u of j.units) {
        if (!units.some((x) => x.id === u.id)) continue;
        u.slurm_job_id = jobId;
        u.attempts = attempt;
        u.state = "pending";
        u.runs_dir = path.join("units", u.id, `a${attempt}`);
      }
    });
  }

  /**
   * A shard's run request, beside its runs folder: the job's config with the shard's index, and
   * the URL of the policy server the script starts for it (its port: the job's port + the index).
   */
  private writeRequest(ctx: ExecutionContext, unit: WorkUnit, count: number, attempt: number): void {
    const index = unit.shard?.index ?? 0;
    const ps = ctx.job().spec.policy_server;
    const baseUrl = ps && "command" in ps ? `http://127.0.0.1:${ps.port + index}/v1` : ctx.policyBaseUrl;
    const runs = ctx.unitRunsDir({ ...unit, runs_dir: path.join("units", unit.id, `a${attempt}`) });
    writeUnitRequest(unitRequest(ctx.envDir, runs, ctx.job().spec.config, { shard: { index, count } }, baseUrl));
  }

  /** The batch script: optionally start the policy server and wait for /v1/models, then run the shard. */
  private script(ctx: ExecutionContext, attempt: number): string {
    const job = ctx.job();
    const runs = `${ctx.jobDir}/units/s$i/a${attempt}`;
    const args = `run --request "${unitRequestFile(runs)}"`;
    const rlenv = ctx.rlenvCommand.map(shq).join(" ");
    // The runner's own folder: loader flags such as `--import tsx` resolve from there.
    const lines = [
      "#!/bin/bash",
      NOTE_STOP,
      "i=$SLURM_ARRAY_TASK_ID",
      `cd ${shq(process.cwd())}`,
      `mkdir -p "${runs}"`,
      'echo "rlenv shard $i on $(hostname) CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"',
    ];
    let serves = false;
    const ps = job.spec.policy_server;
    if (ps && "command" in ps) {
      lines.push(
        `export PORT=$((${ps.port} + i))`,
        LEAVE_IF_STOPPED,
        `( ${ps.command} ) > "${runs}/policy-server.log" 2>&1 &`,
        "psrv=$!",
        "trap 'kill $psrv 2>/dev/null; wait $psrv 2>/dev/null' EXIT",
        // Ready when /v1/models answers 200; node is there already (it runs rlenv).
        `${shq(process.execPath)} -e ${shq(READY_CHECK)} "http://127.0.0.1:$PORT/v1/models" ${ps.ready_timeout_s} || { echo "policy server not ready on port $PORT"; exit 3; }`,
      );
      serves = true;
    }
    // The shard's request (its index, its policy server's URL) was written at submit (writeRequest).
    const run = `${rlenv} ${args}`;
    // The policy server's EXIT trap needs the shell to outlive rlenv; otherwise rlenv is the step's process.
    lines.push(...(serves ? runAndWait(run) : execLast(run)));
    return `${lines.join("\n")}\n`;
  }

  /** The end of a failed shard's output, into the job's log (what went wrong on the node). */
  private logTail(ctx: ExecutionContext, unit: WorkUnit): void {
    const file = path.join(ctx.jobDir, "logs", `shard-${unit.shard?.index ?? 0}-a${unit.attempts}.log`);
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, "utf8").trimEnd().split("\n").slice(-10)) ctx.log(`  ${line}`, unit.id);
  }

  private setUnit(ctx: ExecutionContext, id: string, patch: Partial<WorkUnit>): void {
    ctx.update((job) => {
      const u = job.units.find((x) => x.id === id);
      if (u) Object.assign(u, patch);
    });
  }
}

/** Polls a URL until it answers 2xx or the timeout (s) passes; exit 0 when ready. */
const READY_CHECK = `const [url, t] = process.argv.slice(1); const end = Date.now() + Number(t) * 1000;
(async () => { while (Date.now() < end) { try { const r = await fetch(url); if (r.ok) process.exit(0); } catch {} await new Promise((r) => setTimeout(r, 500)); } process.exit(1); })();`;
