import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { JobEvent, JobRecord } from "../../src/core/remote/api";
import { RunnerClient } from "../../src/core/remote/client/client";
import { SLURM_DONE } from "../../src/core/remote/executors/slurm-client";
import { SlurmControl } from "../../src/core/remote/executors/slurm-control";
import { releaseLeftHeld } from "../../src/core/remote/executors/slurm-elastic";
import type { ExecutionContext } from "../../src/core/remote/jobs/executor";
import { makeFixtureEnv, type StartedRunner, slurmClient, slurmRunnerArgs, slurmSkip, startRunner, waitFor } from "./remote-helpers";

/**
 * The elastic Slurm executor against the real Slurm of test/setup/slurm.sh (one node, two
 * CPUs): shards are sized from the backlog and the node's room, added while rollouts wait,
 * and a node that failed two of a job's shards is kept off its later ones (--exclude, set
 * with scontrol since slurmrestd v0.0.38 refuses excluded_nodes).
 */
const skip = slurmSkip;
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function slurmRunner(): Promise<{ runner: StartedRunner; client: RunnerClient; data: string }> {
  const data = mkdtempSync(path.join(process.env.RLENV_SLURM_SHARED ?? tmpdir(), "runner-"));
  const conf = process.env.RLENV_SLURM_CONF ? ["--slurm-conf", process.env.RLENV_SLURM_CONF] : [];
  const runner = await startRunner(data, [...slurmRunnerArgs({ partition: true }), ...conf]);
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
    rmSync(data, { recursive: true, force: true });
  });
  return { runner, client: new RunnerClient({ url: runner.url, token: runner.token }), data };
}

const logLines = (events: JobEvent[]) => events.flatMap((e) => (e.type === "log" ? [e.line] : []));

test("an elastic job adds shards as the node has room, until its backlog is done, each rollout once", {
  skip,
  timeout: 300_000,
}, async () => {
  const { client, data } = await slurmRunner();
  const { job } = await client.submit(makeFixtureEnv(12, null), {
    executor: "slurm",
    slurm: { elastic: true, rollouts_per_shard: 3, max_retries: 1 },
    config: { policy: { kind: "oracle" }, sandbox: "process", concurrency: 2 },
  });
  assert.deepEqual(job.units, [], "elastic shards are made while the job runs");
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  const logs = logLines(events);
  assert.equal(
    events.filter((e) => e.type === "state").at(-1)?.type === "state"
      ? (events.filter((e) => e.type === "state").at(-1) as { state: string }).state
      : "",
    "completed",
    logs.join("\n"),
  );
  // One node: the first step adds one shard (its room), not the four the backlog would fill.
  const adds = logs.filter((l) => l.startsWith("elastic: backlog"));
  assert.match(adds[0] ?? "", /^elastic: backlog 12 rollout\(s\), 1 node\(s\) with room, 0 shard\(s\) active: adding 1$/, logs.join("\n"));
  assert.ok(adds.length >= 2, `shards were added while the backlog lasted:\n${adds.join("\n")}`);
  const final = await client.job(job.id);
  assert.equal(final.units.length, 4);
  assert.ok(final.units.every((u) => u.state === "completed" && u.node === "vm"));
  const covered = final.units.flatMap((u) => Object.entries(u.samples ?? {}).flatMap(([t, s]) => s.map((i) => `${t}.s${i}`)));
  assert.equal(new Set(covered).size, 12);
  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-pulled-"));
  cleanups.push(() => rmSync(runs, { recursive: true, force: true }));
  const pulled = await client.pull(job.id, runs);
  assert.deepEqual(readdirSync(path.join(pulled.dir, "rollouts")).sort(), [...covered].map((c) => `${c}.jsonl`).sort());
  const summary = JSON.parse(readFileSync(path.join(pulled.dir, "summary.json"), "utf8")) as { rollouts: number; mean_reward: number };
  assert.deepEqual([summary.rollouts, summary.mean_reward], [12, 1]);
  // Every Slurm job of it has ended: nodes are released.
  for (const id of new Set(final.units.map((u) => u.slurm_job_id ?? 0)))
    assert.ok((await slurmClient().tasks(id)).every((t) => SLURM_DONE.has(t.state)));
  void data;
});

test("a node that failed two shards is excluded from the job's later shards", { skip, timeout: 300_000 }, async () => {
  const { client } = await slurmRunner();
  // A replay file that is not there: every shard's `rlenv run` fails at its start, on the node it got.
  const { job } = await client.submit(makeFixtureEnv(2, null), {
    executor: "slurm",
    slurm: { elastic: true, rollouts_per_shard: 2, max_retries: 5 },
    config: { policy: { kind: "replay", replay: "/nonexistent/trajectory.jsonl" }, sandbox: "process" },
  });
  const excludedShard = await waitFor(
    "a shard submitted with vm excluded",
    async () =>
      (await client.job(job.id)).units.find(
        (u, i, all) => all.filter((x) => x.state === "failed" && x.node === "vm").length >= 2 && u.state === "pending" && i >= 2,
      ),
    180_000,
    500,
  );
  const failedBefore = (await client.job(job.id)).units.filter((u) => u.state === "failed");
  assert.equal(failedBefore.length, 2);
  assert.ok(failedBefore.every((u) => u.node === "vm"));
  // Slurm holds the exclusion on the shard submitted after the second failure. The runner records
  // the shard (its Slurm job id) as soon as Slurm took it, held, and sets the exclusion just after,
  // before releasing it: wait for that step rather than read the record in between.
  const env = process.env;
  const slurmJob = async () => {
    const res = await fetch(`${env.RLENV_SLURM_URL}/slurm/v0.0.38/job/${excludedShard.slurm_job_id}`, {
      headers: {
        "X-SLURM-USER-NAME": env.RLENV_SLURM_USER ?? "root",
        "X-SLURM-USER-TOKEN": readFileSync(env.RLENV_SLURM_TOKEN_FILE ?? "", "utf8").trim(),
      },
    });
    return ((await res.json()) as { jobs: Array<{ excluded_nodes?: string; job_state?: string }> }).jobs[0];
  };
  const rec = await waitFor(
    "Slurm's record of the shard to name its excluded node",
    async () => {
      const r = await slurmJob();
      return r?.excluded_nodes ? r : undefined;
    },
    30_000,
    200,
  );
  assert.equal(rec?.excluded_nodes, "vm");
  assert.equal(rec?.job_state, "PENDING");
  await client.cancel(job.id);
  await waitFor(
    "its Slurm job cancelled",
    async () => ((await slurmClient().tasks(excludedShard.slurm_job_id ?? 0)).every((t) => SLURM_DONE.has(t.state)) ? true : undefined),
    30_000,
  );
});

test("a shard left held by a runner that stopped between its submit and its release is released, with its exclusions, on the restart", {
  skip,
  timeout: 60_000,
}, async () => {
  const slurm = slurmClient();
  const shared = mkdtempSync(path.join(process.env.RLENV_SLURM_SHARED ?? tmpdir(), "held-"));
  cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
  const jobId = await slurm.submit({
    name: "rlenv-held-test",
    script: "#!/bin/sh\ntrue\n",
    cwd: shared,
    stdout: path.join(shared, "out.log"),
    hold: true,
    environment: { PATH: "/usr/bin:/bin" },
  });
  cleanups.push(() => slurm.cancel(jobId).catch(() => {}));
  // The record a runner leaves when it stops right after Slurm took the shard: the shard with its
  // exclusions still to set, and nothing else done.
  const record = {
    units: [{ id: "e0", state: "pending", attempts: 1, runs_dir: "e0", keep: "all", slurm_job_id: jobId, release_pending: ["vm"] }],
  } as unknown as JobRecord;
  const logs: string[] = [];
  const ctx = {
    job: () => record,
    update: (mutate: (j: JobRecord) => void) => mutate(record),
    log: (line: string) => logs.push(line),
  } as unknown as ExecutionContext;
  const control = new SlurmControl(process.env.RLENV_SLURM_CONF ? { slurmConf: process.env.RLENV_SLURM_CONF } : {});
  await releaseLeftHeld(ctx, { client: slurm, control });
  const env = process.env;
  const res = await fetch(`${env.RLENV_SLURM_URL}/slurm/v0.0.38/job/${jobId}`, {
    headers: {
      "X-SLURM-USER-NAME": env.RLENV_SLURM_USER ?? "root",
      "X-SLURM-USER-TOKEN": readFileSync(env.RLENV_SLURM_TOKEN_FILE ?? "", "utf8").trim(),
    },
  });
  const rec = ((await res.json()) as { jobs: Array<{ excluded_nodes?: string; state_reason?: string }> }).jobs[0];
  assert.equal(rec?.excluded_nodes, "vm", "the exclusion is set before the release");
  assert.notEqual(rec?.state_reason, "JobHeldUser", "the shard is no longer held");
  assert.equal(record.units[0]?.release_pending, undefined, "the release is recorded");
  assert.match(logs.join("\n"), new RegExp(`Slurm job ${jobId} was still held .*released, excluding vm`));
  // A second pass (the next poll) has nothing left to do.
  await releaseLeftHeld(ctx, { client: slurm, control: { excludeAndRelease: () => assert.fail("released twice") } });
});
