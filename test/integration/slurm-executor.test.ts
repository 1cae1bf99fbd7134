import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { JobEvent } from "../../src/core/remote/api";
import { RunnerClient } from "../../src/core/remote/client/client";
import { SLURM_DONE } from "../../src/core/remote/executors/slurm-client";
import { readRun } from "../../src/core/runs/run-dir";
import { makeFixtureEnv, type StartedRunner, slurmClient, slurmRunnerArgs, slurmSkip, startRunner, waitFor } from "./remote-helpers";

/**
 * The slurm executor against the real one-node Slurm of test/setup/slurm.sh: shards as
 * array tasks with --gres=gpu:1 over slurmrestd (JWT), a killed shard resubmitted, a
 * shard failing past its retries, and a cancel that leaves no Slurm job behind.
 */
const skip = slurmSkip;
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function slurmRunner(): Promise<{ runner: StartedRunner; client: RunnerClient; data: string }> {
  // Job folders must be where the compute node sees them: the cluster's shared folder.
  const data = mkdtempSync(path.join(process.env.RLENV_SLURM_SHARED ?? tmpdir(), "runner-"));
  const runner = await startRunner(data, slurmRunnerArgs({ partition: true }));
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
    rmSync(data, { recursive: true, force: true });
  });
  return { runner, client: new RunnerClient({ url: runner.url, token: runner.token }), data };
}

const stateOf = (events: JobEvent[]) => events.filter((e) => e.type === "state").map((e) => (e.type === "state" ? e.state : ""));

test("a job runs as one Slurm array task per shard with --gres=gpu:1, merged into one run", { skip, timeout: 240_000 }, async () => {
  const { client, data } = await slurmRunner();
  const health = await client.health();
  assert.deepEqual(health.executors.sort(), ["local", "slurm"]);
  const { job } = await client.submit(makeFixtureEnv(4, 0), {
    executor: "slurm",
    slurm: { shards: 2, gpus_per_shard: 1 },
    config: { policy: { kind: "oracle" }, sandbox: "process", concurrency: 2 },
  });
  assert.deepEqual(
    job.units.map((u) => u.shard),
    [
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ],
  );
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  assert.deepEqual(
    stateOf(events),
    ["queued", "running", "completed"],
    events
      .filter((e) => e.type === "log")
      .map((e) => (e.type === "log" ? e.line : ""))
      .join("\n"),
  );
  assert.equal(events.filter((e) => e.type === "rollout-end").length, 4);
  const final = await client.job(job.id);
  assert.ok(final.units.every((u) => u.state === "completed" && u.slurm_job_id !== undefined));
  // Each shard ran on the node with the (dummy) GPU assigned by Slurm.
  const logs = readdirSync(path.join(data, "jobs", job.id, "logs"));
  assert.equal(logs.length, 2);
  for (const l of logs) assert.match(readFileSync(path.join(data, "jobs", job.id, "logs", l), "utf8"), /CUDA_VISIBLE_DEVICES=0/);
  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-pulled-"));
  cleanups.push(() => rmSync(runs, { recursive: true, force: true }));
  const pulled = await client.pull(job.id, runs);
  assert.equal(readRun(pulled.dir).record.status, "completed");
  assert.equal(readdirSync(path.join(pulled.dir, "rollouts")).length, 4);
  const summary = JSON.parse(readFileSync(path.join(pulled.dir, "summary.json"), "utf8")) as { rollouts: number; mean_reward: number };
  assert.deepEqual([summary.rollouts, summary.mean_reward], [4, 1]);
});

/** Waits until shard `index` of the job runs in Slurm and returns its id as "ARRAYID_INDEX" (cancels that task alone). */
async function runningTask(client: RunnerClient, jobId: string, index: number): Promise<string> {
  let seen = "nothing yet";
  return waitFor(
    `shard ${index} running`,
    async () => {
      const job = await client.job(jobId);
      const unit = job.units[index];
      seen = `job ${job.state}, unit ${unit?.state} (Slurm job ${unit?.slurm_job_id})`;
      if (unit?.slurm_job_id === undefined) return undefined;
      const tasks = await slurmClient().tasks(unit.slurm_job_id);
      seen += `, tasks ${JSON.stringify(tasks.map((t) => [t.arrayTaskId ?? t.arrayTaskString, t.state]))}`;
      return tasks.some((t) => t.arrayTaskId === index && t.state === "RUNNING") ? `${unit.slurm_job_id}_${index}` : undefined;
    },
    120_000,
    200,
    () => seen,
  );
}

/** Waits (30 s at most) until no process of the job is left; a timeout names those that are. */
async function noProcessLeft(jobId: string): Promise<void> {
  let left: string[] = [];
  await waitFor(
    "no process of the job",
    () => {
      left = jobProcesses(jobId);
      return left.length === 0 ? true : undefined;
    },
    30_000,
    250,
    () => left.join("; "),
  );
}

/** The processes whose environment names the job: what a cancel must leave none of. */
function jobProcesses(jobId: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/environ`, "utf8").split("\0").includes(`RLENV_JOB=${jobId}`);
      } catch {
        return false;
      }
    })
    .map((p) => {
      try {
        return `${p}: ${readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 120)}`;
      } catch {
        return `${p}: (gone)`;
      }
    });
}

test("a shard killed in Slurm is resubmitted and the job still completes", { skip, timeout: 300_000 }, async () => {
  const { client } = await slurmRunner();
  const { job } = await client.submit(makeFixtureEnv(2, 4), {
    executor: "slurm",
    slurm: { shards: 2, gpus_per_shard: 0, max_retries: 1 },
    config: { policy: { kind: "oracle" }, sandbox: "process" },
  });
  const victim = await runningTask(client, job.id, 1);
  await slurmClient().cancel(victim);
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  assert.deepEqual(stateOf(events), ["queued", "running", "completed"]);
  const final = await client.job(job.id);
  assert.equal(final.units[1]?.attempts, 2);
  assert.equal(final.units[0]?.attempts, 1);
  assert.ok(events.some((e) => e.type === "log" && /shard 1 ended CANCELLED.*resubmitting/.test(e.line)));
  assert.equal(final.progress.done, 2);
});

test("a shard failing past its retries fails the job and cancels the other shards", { skip, timeout: 300_000 }, async () => {
  const { client } = await slurmRunner();
  const { job } = await client.submit(makeFixtureEnv(2, 30), {
    executor: "slurm",
    slurm: { shards: 2, gpus_per_shard: 0, max_retries: 0 },
    config: { policy: { kind: "oracle" }, sandbox: "process" },
  });
  const victim = await runningTask(client, job.id, 0);
  await slurmClient().cancel(victim);
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  assert.equal(stateOf(events).at(-1), "failed", events.map((e) => JSON.stringify(e)).join("\n"));
  const final = await client.job(job.id);
  assert.match(final.error ?? "", /shard 0 ended CANCELLED after 1 attempt/);
  const arrayId = final.units[1]?.slurm_job_id ?? 0;
  await waitFor(
    "the other shard ended in Slurm",
    async () => ((await slurmClient().tasks(arrayId)).every((t) => SLURM_DONE.has(t.state)) ? true : undefined),
    30_000,
    200,
  );
});

test("DELETE cancels every shard: no Slurm job left pending or running, no process of the job", { skip, timeout: 300_000 }, async () => {
  const { client } = await slurmRunner();
  // Three shards on a two-CPU node with a GPU each: one runs, the others wait in the queue.
  const { job } = await client.submit(makeFixtureEnv(3, 60), {
    executor: "slurm",
    slurm: { shards: 3, gpus_per_shard: 1 },
    config: { policy: { kind: "oracle" }, sandbox: "process" },
  });
  await runningTask(client, job.id, 0);
  const cancelled = await client.cancel(job.id);
  assert.equal(cancelled.state, "cancelled");
  const ids = new Set(cancelled.units.map((u) => u.slurm_job_id ?? 0));
  let states: Array<[number, string, string]> = [];
  const readStates = async () => {
    states = [];
    for (const id of ids)
      for (const t of await slurmClient().tasks(id)) states.push([id, String(t.arrayTaskId ?? t.arrayTaskString), t.state]);
    return states;
  };
  await waitFor(
    "every Slurm task ended",
    async () => ((await readStates()).every(([, , s]) => SLURM_DONE.has(s)) ? true : undefined),
    60_000,
    250,
    () => JSON.stringify(states),
  );
  assert.ok(
    states.every(([, , s]) => s === "CANCELLED"),
    JSON.stringify(states),
  );
  await noProcessLeft(job.id);
});

test("shards that start their own policy server: they complete, and a cancel leaves no process of the job (server included)", {
  skip,
  timeout: 300_000,
}, async () => {
  const { client } = await slurmRunner();
  const standIn = (env: string) => `${env} ${process.execPath} --import tsx ${path.join(__dirname, "remote-policy-server.ts")}`;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const { job } = await client.submit(makeFixtureEnv(2, null), {
    executor: "slurm",
    slurm: { shards: 2, gpus_per_shard: 0 },
    config: { policy: { kind: "openai", model: "scripted" }, sandbox: "process" },
    policy_server: { command: standIn("READY_DELAY_MS=300"), port, ready_timeout_s: 60 },
  });
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  const final = await client.job(job.id);
  assert.equal(final.state, "completed", events.map((e) => JSON.stringify(e)).join("\n"));
  assert.deepEqual(final.progress, { done: 2, total: 2, mean_reward: 1 });

  // A server that never gets ready: the shard waits for it, and is cancelled while it does.
  const { job: waiting } = await client.submit(makeFixtureEnv(2, null), {
    executor: "slurm",
    slurm: { shards: 1, gpus_per_shard: 0 },
    config: { policy: { kind: "openai", model: "scripted" }, sandbox: "process" },
    policy_server: { command: standIn("READY_DELAY_MS=600000"), port: port + 10, ready_timeout_s: 600 },
  });
  await runningTask(client, waiting.id, 0);
  await waitFor(
    "the policy server started",
    () => (jobProcesses(waiting.id).some((p) => p.includes("remote-policy-server")) ? true : undefined),
    60_000,
    100,
  );
  assert.equal((await client.cancel(waiting.id)).state, "cancelled");
  await noProcessLeft(waiting.id);
});

for (const how of ["SIGKILL", "SIGTERM"] as const) {
  test(`runner ${how} while shards run in Slurm: the restarted runner re-adopts them, nothing resubmitted`, {
    skip,
    timeout: 300_000,
  }, async () => {
    const { runner, client, data } = await slurmRunner();
    const { job } = await client.submit(makeFixtureEnv(2, 8), {
      executor: "slurm",
      slurm: { shards: 2, gpus_per_shard: 0 },
      config: { policy: { kind: "oracle" }, sandbox: "process" },
    });
    await runningTask(client, job.id, 0);
    // SIGTERM is a graceful stop (a restart of the service): the shards live on in Slurm as they do after a crash.
    await (how === "SIGKILL" ? runner.kill() : runner.stop());
    const again = await startRunner(data, slurmRunnerArgs());
    cleanups.push(async () => {
      if (again.proc.exitCode === null) await again.stop();
    });
    const client2 = new RunnerClient({ url: again.url, token: again.token });
    const events: JobEvent[] = [];
    await client2.followEvents(job.id, (e) => events.push(e));
    assert.deepEqual(stateOf(events), ["queued", "running", "interrupted", "running", "completed"]);
    const final = await client2.job(job.id);
    assert.deepEqual(
      final.units.map((u) => [u.state, u.attempts]),
      [
        ["completed", 1],
        ["completed", 1],
      ],
      "each shard ran once in Slurm, to its end",
    );
    assert.equal(final.progress.done, 2);
    assert.equal(final.interruptions, 1);
  });
}
