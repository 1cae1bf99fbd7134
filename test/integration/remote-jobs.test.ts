import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import Docker from "dockerode";
import type { JobEvent, JobRecord } from "../../src/core/remote/api";
import { RunnerClient } from "../../src/core/remote/client/client";
import { readRun, summarizeRunDir } from "../../src/core/runs/run-dir";
import { missing } from "../support/services";
import { makeFixtureEnv, runFolderFiles, type StartedRunner, startRunner, waitFor } from "./remote-helpers";

/**
 * Jobs on the local executor, end to end over loopback: real `rlenv run` processes and
 * real sandboxes, followed by SSE, cancelled, pulled, and resumed after a SIGKILL.
 */
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function freshRunner(extra: string[] = []): Promise<{ runner: StartedRunner; client: RunnerClient; data: string }> {
  const data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-jobs-"));
  const runner = await startRunner(data, extra);
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
    rmSync(data, { recursive: true, force: true });
  });
  return { runner, client: new RunnerClient({ url: runner.url, token: runner.token }), data };
}

const sandbox = "process" as const;

test("submit, follow to completion, pull: the pulled run reads like a local one", async () => {
  const { client, runner } = await freshRunner();
  const envDir = makeFixtureEnv(3, 0);
  const key = `key-${Date.now()}`;
  const first = await client.submit(envDir, { config: { policy: { kind: "oracle" }, k: 2, concurrency: 2, sandbox } }, key);
  assert.equal(first.created, true);
  // A retried submit with the same idempotency key is the same job.
  const again = await client.submit(envDir, { config: { policy: { kind: "oracle" }, k: 2, concurrency: 2, sandbox } }, key);
  assert.equal(again.created, false);
  assert.equal(again.job.id, first.job.id);
  assert.equal((await client.jobs()).length, 1);

  const events: JobEvent[] = [];
  await client.followEvents(first.job.id, (ev) => events.push(ev));
  const states = events.filter((e) => e.type === "state").map((e) => (e.type === "state" ? e.state : ""));
  assert.deepEqual(states, ["queued", "running", "completed"], JSON.stringify(events.filter((e) => e.type === "log").slice(-5)));
  const ends = events.filter((e) => e.type === "rollout-end");
  assert.equal(ends.length, 6);
  assert.ok(ends.every((e) => e.type === "rollout-end" && e.status === "completed" && e.reward === 1));
  const ids = events.map((e) => e.id);
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
    "event ids increase",
  );

  // Last-Event-ID: a reconnect after event n gets exactly the rest.
  const mid = ids[Math.floor(ids.length / 2)] ?? 0;
  const rest: JobEvent[] = [];
  await client.followEvents(first.job.id, (ev) => rest.push(ev), { after: mid });
  assert.deepEqual(
    rest.map((e) => e.id),
    ids.filter((i) => i > mid),
  );

  const job = await client.job(first.job.id);
  assert.equal(job.state, "completed");
  assert.deepEqual(job.progress, { done: 6, total: 6, mean_reward: 1 });

  const metrics = await (await fetch(`${runner.url}/metrics`, { headers: { Authorization: `Bearer ${runner.token}` } })).text();
  assert.match(metrics, /^rlenv_jobs\{state="completed"\} 1$/m);
  assert.match(metrics, /^rlenv_rollouts_total 6$/m);
  assert.match(metrics, /^rlenv_rollouts_per_second 0\.1$/m);
  assert.match(metrics, /^rlenv_policy_utilisation (0|0\.\d+|1)$/m);

  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-pulled-"));
  cleanups.push(() => rmSync(runs, { recursive: true, force: true }));
  const pulled = await client.pull(first.job.id, runs);
  const info = readRun(pulled.dir);
  assert.equal(info.record.id, job.run_id);
  assert.equal(info.record.status, "completed");
  assert.equal(readdirSync(path.join(pulled.dir, "rollouts")).length, 6);
  const summary = JSON.parse(readFileSync(path.join(pulled.dir, "summary.json"), "utf8")) as { rollouts: number; mean_reward: number };
  assert.equal(summary.rollouts, 6);
  assert.equal(summary.mean_reward, 1);
  assert.equal(summarizeRunDir(pulled.dir).rollouts, 6);
});

test("pull --follow fills the folder as rollouts end and ends with the job, equal to the runner's", async () => {
  const { client, data } = await freshRunner();
  // One at a time: t0 ends at once, t1 naps (within its 30 s step limit) until the test cancels the job.
  const envDir = makeFixtureEnv(2, 0);
  const tasksFile = path.join(envDir, "tasks.jsonl");
  writeFileSync(
    tasksFile,
    readFileSync(tasksFile, "utf8").replace(/("id":"t1".*?"seconds":)0/, (_, head: string) => `${head}25`),
  );
  const { job } = await client.submit(envDir, { config: { policy: { kind: "oracle" }, concurrency: 1, sandbox } });
  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-followed-"));
  cleanups.push(() => rmSync(runs, { recursive: true, force: true }));
  const following = client.pull(job.id, runs, { follow: true });
  let settled = false;
  void following.finally(() => {
    settled = true;
  });
  const runDir = path.join(runs, job.run_id);
  // t0's trajectory arrives while t1 still naps: the job is running and the pull has not returned.
  const first = await waitFor(
    "t0 pulled while the job runs",
    () => (existsSync(path.join(runDir, "rollouts", "t0.s0.jsonl")) ? path.join(runDir, "rollouts", "t0.s0.jsonl") : undefined),
    120_000,
  );
  assert.equal((await client.job(job.id)).state, "running");
  assert.equal(settled, false);
  const lines = readFileSync(first, "utf8").trim().split("\n");
  assert.equal(
    (JSON.parse(lines.at(-1) ?? "{}") as { type?: string }).type,
    "end",
    "only whole, ended trajectories are sent while the job runs",
  );
  assert.ok(!existsSync(path.join(runDir, "rollouts", "t1.s0.jsonl")), "a trajectory still being written is not sent before the end");
  await client.cancel(job.id);
  const pulled = await following;
  assert.equal(pulled.state, "cancelled");
  // The end brought the rest: the folder is the runner's merged folder, byte for byte.
  const runnerDir = path.join(data, "jobs", job.id, "run");
  const files = (dir: string) => runFolderFiles(dir);
  assert.ok(
    lstatSync(path.join(runnerDir, "rollouts")).isSymbolicLink(),
    "one unit did the job: its rollouts folder is shared, not merged file by file",
  );
  assert.deepEqual(files(runDir), files(runnerDir));
  for (const f of files(runnerDir)) assert.ok(readFileSync(path.join(runDir, f)).equals(readFileSync(path.join(runnerDir, f))), f);
  assert.ok(files(runDir).includes("rollouts/t1.s0.jsonl") && files(runDir).includes("run.json"));
  assert.equal(readRun(runDir).record.status, "cancelled");
  // Following a job that has ended is a plain pull.
  const again = await client.pull(job.id, mkdtempSync(path.join(runs, "again-")), { follow: true });
  assert.deepEqual(files(again.dir), files(runnerDir));
});

test("cancel mid-run stops every process and container of the job", async () => {
  const useDocker = !missing("docker") && !missing("image");
  const { client, data } = await freshRunner();
  const envDir = makeFixtureEnv(4, 20);
  const { job } = await client.submit(envDir, {
    config: { policy: { kind: "oracle" }, concurrency: 2, sandbox: useDocker ? "docker" : "process" },
  });
  // Wait until the sandboxes are busy napping.
  await waitFor("a running unit", async () => ((await client.job(job.id)).units[0]?.state === "running" ? true : undefined), 60_000);
  await new Promise((r) => setTimeout(r, 3000));
  // The run folder can be pulled while the job runs: a snapshot with what has been written.
  const snapshotDir = mkdtempSync(path.join(tmpdir(), "rlenv-snapshot-"));
  cleanups.push(() => rmSync(snapshotDir, { recursive: true, force: true }));
  const snap = await waitFor(
    "an in-progress trajectory in a snapshot",
    async () => {
      const p = await client.pull(job.id, snapshotDir);
      return readdirSync(path.join(p.dir, "rollouts")).length >= 1 ? p : undefined;
    },
    60_000,
    500,
  );
  assert.equal(snap.state, "running");
  assert.equal(readRun(snap.dir).record.status, "running");
  const pgid = (await client.job(job.id)).units[0]?.pgid;
  assert.ok(pgid, "the unit's process group is journalled");
  // Docker sandboxes carry their creator's pid (the unit's `rlenv run`, which leads its process group).
  const ownedContainers = async () =>
    (await new Docker().listContainers({ all: true, filters: { label: [`rlenv.owner=${pgid}`] } })).length;
  if (useDocker) assert.ok((await ownedContainers()) >= 1, "the rollouts run in Docker containers");
  const cancelled = await client.cancel(job.id);
  assert.equal(cancelled.state, "cancelled");
  // No process of the group, no process started for this job, no container labelled with it.
  assert.throws(() => process.kill(-pgid, 0), /ESRCH/);
  const ours = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/environ`, "utf8").split("\0").includes(`RLENV_JOB=${job.id}`);
      } catch {
        return false;
      }
    });
  assert.deepEqual(ours, []);
  if (useDocker) assert.equal(await ownedContainers(), 0, "no container of the job is left");
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  assert.equal(
    events.filter((e) => e.type === "state").at(-1)?.type === "state" &&
      (events.filter((e) => e.type === "state").at(-1) as { state: string }).state,
    "cancelled",
  );
  assert.ok(existsSync(path.join(data, "jobs", job.id, "job.json")));
});

for (const how of ["SIGKILL", "SIGTERM"] as const) {
  test(`${how} mid-job and restart: every job listed, the job marked interrupted and resumed without redoing finished rollouts`, async () => {
    const data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-kill-"));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    let runner = await startRunner(data);
    let client = new RunnerClient({ url: runner.url, token: runner.token });
    const done = await client.submit(makeFixtureEnv(1, 0), { name: "finished-before", config: { policy: { kind: "oracle" }, sandbox } });
    await client.followEvents(done.job.id, () => {});
    // 6 tasks, 2 at a time, 3 s each: kill once some (not all) have ended.
    const { job } = await client.submit(makeFixtureEnv(6, 3), {
      name: "killed",
      config: { policy: { kind: "oracle" }, concurrency: 2, sandbox },
    });
    await waitFor("two finished rollouts", async () => ((await client.job(job.id)).progress.done >= 2 ? true : undefined), 90_000, 50);
    // SIGTERM is a graceful stop (a service restart): the unit is interrupted, not cancelled, and resumed the same way.
    await (how === "SIGKILL" ? runner.kill() : runner.stop());
    const before = JSON.parse(readFileSync(path.join(data, "jobs", job.id, "job.json"), "utf8")) as JobRecord;
    assert.equal(before.state, "running");
    const finishedFiles = new Set<string>();
    const unitDir = path.join(data, "jobs", job.id, "units", "u0");
    for (const run of readdirSync(unitDir)) {
      for (const f of readdirSync(path.join(unitDir, run, "rollouts"))) {
        // Ended as done work: a graceful stop ends the rollouts it stops as cancelled, and those are run again.
        const end = readFileSync(path.join(unitDir, run, "rollouts", f), "utf8")
          .split("\n")
          .filter((l) => l.includes('"type":"end"'))
          .map((l) => JSON.parse(l) as { status: string })[0];
        if (end && end.status !== "cancelled") finishedFiles.add(f);
      }
    }
    assert.ok(finishedFiles.size >= 2 && finishedFiles.size < 6, `finished before the kill: ${finishedFiles.size}`);

    runner = await startRunner(data);
    cleanups.push(async () => {
      if (runner.proc.exitCode === null) await runner.stop();
    });
    client = new RunnerClient({ url: runner.url, token: runner.token });
    const listed = await client.jobs();
    assert.deepEqual(listed.map((j) => j.name).sort(), ["finished-before", "killed"]);
    assert.equal(listed.find((j) => j.name === "finished-before")?.state, "completed");
    const events: JobEvent[] = [];
    await client.followEvents(job.id, (e) => events.push(e));
    const states = events.filter((e) => e.type === "state").map((e) => (e.type === "state" ? e.state : ""));
    assert.deepEqual(states, ["queued", "running", "interrupted", "running", "completed"]);
    const final = await client.job(job.id);
    assert.equal(final.interruptions, 1);
    assert.equal(final.units[0]?.superseded_by !== undefined, true);
    const remainder = final.units.slice(1);
    const redoneTasks = remainder.flatMap((u) => u.tasks ?? []);
    assert.equal(redoneTasks.length, 6 - finishedFiles.size, `remainder covers only unfinished tasks: ${JSON.stringify(remainder)}`);

    const runs = mkdtempSync(path.join(tmpdir(), "rlenv-pulled-"));
    cleanups.push(() => rmSync(runs, { recursive: true, force: true }));
    const pulled = await client.pull(job.id, runs);
    const files = readdirSync(path.join(pulled.dir, "rollouts"));
    assert.equal(files.length, 6, `exactly one rollout per task: ${files.join(", ")}`);
    assert.ok(
      lstatSync(path.join(data, "jobs", job.id, "run", "rollouts")).isDirectory(),
      "two units: the rollouts are merged file by file",
    );
    for (const f of finishedFiles) assert.ok(files.includes(f), `finished rollout ${f} kept as it was`);
    const summary = JSON.parse(readFileSync(path.join(pulled.dir, "summary.json"), "utf8")) as {
      rollouts: number;
      mean_reward: number;
      per_task: unknown[];
    };
    assert.equal(summary.rollouts, 6);
    assert.equal(summary.per_task.length, 6);
    assert.equal(summary.mean_reward, 1);
  });
}

test("a job starts its own policy server, waits for /v1/models, and stops it at the end", async () => {
  const { client } = await freshRunner();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = `${process.execPath} --import tsx ${path.join(__dirname, "remote-policy-server.ts")}`;
  const { job } = await client.submit(makeFixtureEnv(2, null), {
    config: { policy: { kind: "openai", model: "scripted" }, sandbox },
    policy_server: { command: server, port, ready_timeout_s: 60 },
  });
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  const logs = events.filter((e) => e.type === "log").map((e) => (e.type === "log" ? e.line : ""));
  assert.ok(logs.includes(`policy server ready on http://127.0.0.1:${port}/v1`), logs.join("\n"));
  const final = await client.job(job.id);
  assert.equal(final.state, "completed", logs.join("\n"));
  assert.deepEqual(final.progress, { done: 2, total: 2, mean_reward: 1 });
  // Stopped with the job: nothing listens on its port any more.
  await waitFor(
    "the policy server to stop",
    async () =>
      (await fetch(`http://127.0.0.1:${port}/v1/models`).then(
        () => false,
        () => true,
      ))
        ? true
        : undefined,
    10_000,
  );
});

test("a policy server that never gets ready fails the job with the reason", async () => {
  const { client } = await freshRunner();
  const { job } = await client.submit(makeFixtureEnv(1, null), {
    config: { policy: { kind: "openai", model: "scripted" }, sandbox },
    policy_server: { command: "sleep 30", port: 20000 + Math.floor(Math.random() * 20000), ready_timeout_s: 1 },
  });
  await client.followEvents(job.id, () => {});
  const final = await client.job(job.id);
  assert.equal(final.state, "failed");
  assert.match(final.error ?? "", /did not answer .*\/models within 1 s/);
});
