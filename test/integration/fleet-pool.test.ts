import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadPool } from "../../src/core/fleet/pool-config";
import type { PoolRecord } from "../../src/core/fleet/pool-record";
import { RunnerClient } from "../../src/core/remote/client/client";
import { runOnPool } from "../../src/core/fleet/pool-run";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { makeFixtureEnv, REPO, type StartedRunner, startRunner, waitFor } from "./remote-helpers";

/** The built CLI, as the issue asks: real runner processes from dist/. */
const DIST_CLI = [process.execPath, path.join(REPO, "dist/cli.js")];
const skip = existsSync(DIST_CLI[1] ?? "") ? false : "dist/cli.js missing: npm run build";

const roots: string[] = [];
const runners: StartedRunner[] = [];
after(async () => {
  for (const r of runners) {
    // A stopped runner (or unit) must be continued before it can end.
    for (const pid of [r.proc.pid, ...childPids(r.proc.pid)]) signal(pid, "SIGCONT");
    if (r.proc.exitCode === null && r.proc.signalCode === null) await r.stop().catch(() => {});
  }
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** The processes a runner started (its units), read from ps. */
function childPids(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** n runners from dist/ and a runners.yaml naming them as pool `lab`; the tokens go in through the environment. */
async function fleet(n: number, pool: { heartbeat_s: number; stall_s: number }): Promise<{ dir: string; started: StartedRunner[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-fleet-"));
  roots.push(dir);
  const started = await Promise.all(
    Array.from({ length: n }, (_, i) => startRunner(path.join(dir, `data${i}`), ["--max-jobs", "2"], DIST_CLI)),
  );
  runners.push(...started);
  const names = started.map((_, i) => `r${i}`);
  writeFileSync(
    path.join(dir, "runners.yaml"),
    `runners:\n${started.map((r, i) => `  r${i}: { url: "${r.url}" }`).join("\n")}\npools:\n  lab:\n    members: [${names.join(", ")}]\n    heartbeat_s: ${pool.heartbeat_s}\n    stall_s: ${pool.stall_s}\n`,
  );
  started.forEach((r, i) => {
    process.env[`RLENV_RUNNER_TOKEN_R${i}`] = r.token;
  });
  return { dir, started };
}

/** Each merged rollout once, named by task and sample, every one ended. */
function checkMerged(runDir: string, tasks: number, k: number): void {
  const files = readdirSync(path.join(runDir, "rollouts")).filter((f) => f.endsWith(".jsonl"));
  const want = Array.from({ length: tasks }, (_, t) => Array.from({ length: k }, (_, s) => `t${t}.s${s}.jsonl`)).flat();
  assert.deepEqual(files.sort(), want.sort());
  for (const f of files) {
    const { events } = readTrajectory(path.join(runDir, "rollouts", f));
    const start = events.find((e) => e.type === "start");
    assert.equal(start?.type === "start" ? `${start.task.id}.s${start.sample}.jsonl` : "", f, `${f} holds another rollout`);
    assert.ok(
      events.some((e) => e.type === "end"),
      `${f} has no end`,
    );
  }
  const summary = JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8")) as { rollouts: number };
  assert.equal(summary.rollouts, tasks * k);
}

describe("runner pool", { skip, timeout: 300_000 }, () => {
  it("splits a job over three real runners; one killed with SIGKILL and one whose unit is stopped (SIGSTOP) are failed over, each rollout kept once", async () => {
    const { dir, started } = await fleet(3, { heartbeat_s: 2, stall_s: 15 });
    const env = makeFixtureEnv(12, 0.4, dir);
    const pool = loadPool("lab", {}, path.join(dir, "runners.yaml"));
    let killed = false;
    let stopped = false;
    const [r0, r1] = started;
    const log: string[] = [];
    const { runDir, record } = await runOnPool({
      pool,
      envDir: env,
      request: { policy: "oracle", k: 4, concurrency: 2, sandbox: "process", executor: "local" },
      runsDir: path.join(dir, "runs"),
      // A job that cannot finish fails the test with its record, rather than hang it.
      signal: AbortSignal.timeout(200_000),
      log: (l) => {
        log.push(l);
        if (process.env.FLEET_DEBUG) process.stderr.write(`${l}\n`);
      },
      onProgress: (p: PoolRecord) => {
        const by = (m: string) => p.shards.filter((s) => s.member === m).reduce((n, s) => n + s.kept, 0);
        // Mid-job: r0 dies outright once it has delivered something; r1's unit freezes (the runner still answers).
        if (!killed && by("r0") >= 2) {
          killed = true;
          r0?.proc.kill("SIGKILL");
        }
        if (!stopped && by("r1") >= 2) {
          const units = childPids(r1?.proc.pid);
          if (units.length > 0) {
            stopped = true;
            for (const u of units) signal(u, "SIGSTOP");
          }
        }
      },
    });
    assert.ok(killed && stopped, `both faults happened (killed ${killed}, stopped ${stopped})\n${log.join("\n")}`);
    assert.equal(record.state, "completed", `${record.error}\n${log.join("\n")}`);
    checkMerged(runDir, 12, 4);
    const pj = JSON.parse(readFileSync(path.join(runDir, "pool.json"), "utf8")) as PoolRecord;
    assert.equal(pj.rollouts.kept, 48);
    const reasons = pj.failovers.map((f) => `${f.member}: ${f.reason}`);
    assert.ok(
      reasons.some((r) => r.startsWith("r0: runner r0 stopped answering")),
      reasons.join("\n"),
    );
    assert.ok(
      reasons.some((r) => r.startsWith("r1: stalled")),
      reasons.join("\n"),
    );
    // Kept copies add up to the job exactly; duplicates (if a copy came late) name a kept one elsewhere.
    assert.equal(
      pj.shards.reduce((n, s) => n + s.kept, 0),
      48,
    );
    for (const d of pj.duplicates) assert.notEqual(d.kept.shard, d.dropped.shard);
    assert.ok(!existsSync(path.join(dir, "runs", ".pool", pj.run_id)), "shard folders are cleaned up after a complete run");
  });

  it("rlenv submit --pool: the CLI splits the job, prints the merged run folder and exits 0; a pool that is not there is named", async () => {
    const { dir } = await fleet(2, { heartbeat_s: 5, stall_s: 60 });
    const env = makeFixtureEnv(4, null, dir);
    const run = (args: string[]) =>
      spawnSync(DIST_CLI[0] ?? "node", [DIST_CLI[1] ?? "", "submit", env, ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, RLENV_RUNNERS: path.join(dir, "runners.yaml") },
        timeout: 180_000,
      });
    const ok = run(["--pool", "lab", "--pull", "runs", "--sandbox", "process", "-k", "3"]);
    assert.equal(ok.status, 0, ok.stderr);
    const runDir = ok.stdout.trim();
    checkMerged(runDir, 4, 3);
    const pj = JSON.parse(readFileSync(path.join(runDir, "pool.json"), "utf8")) as PoolRecord;
    assert.deepEqual(pj.shards.map((s) => s.member).sort(), ["r0", "r1"]);
    assert.match(ok.stderr, /pool lab: completed: 12\/12 rollouts/);
    const missing = run(["--pool", "nope"]);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /no pool "nope" in .*runners\.yaml \(pools: lab\)/);
  });

  it("a shard's runner killed and restarted resumes it by sample number: only the named samples not yet finished run again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rlenv-fleet-resume-"));
    roots.push(dir);
    const data = path.join(dir, "data");
    let runner = await startRunner(data, [], DIST_CLI);
    runners.push(runner);
    let client = new RunnerClient({ url: runner.url, token: runner.token });
    const samples = { t0: [1, 3], t1: [0, 2], t2: [4, 5] };
    const { job } = await client.submit(makeFixtureEnv(3, 2, dir), {
      config: { policy: { kind: "oracle" }, k: 6, samples, concurrency: 2, sandbox: "process" },
    });
    assert.equal(job.progress.total, 6);
    await waitFor("two finished rollouts", async () => ((await client.job(job.id)).progress.done >= 2 ? true : undefined), 120_000, 50);
    await runner.kill();
    runner = await startRunner(data, [], DIST_CLI);
    runners.push(runner);
    client = new RunnerClient({ url: runner.url, token: runner.token });
    await client.followEvents(job.id, () => {});
    const final = await client.job(job.id);
    assert.equal(final.state, "completed", final.error);
    const remainder = final.units.slice(1);
    assert.equal(remainder.length, 1, JSON.stringify(final.units));
    const again = Object.entries(remainder[0]?.samples ?? {}).flatMap(([t, s]) => s.map((i) => `${t}.s${i}`));
    assert.ok(again.length > 0 && again.length <= 4, `only unfinished samples run again: ${again.join(", ")}`);
    const runs = path.join(dir, "pulled");
    const pulled = await client.pull(job.id, runs);
    assert.deepEqual(
      readdirSync(path.join(pulled.dir, "rollouts")).sort(),
      ["t0.s1", "t0.s3", "t1.s0", "t1.s2", "t2.s4", "t2.s5"].map((f) => `${f}.jsonl`),
    );
  });

  it("a runner stopped whole (SIGSTOP) misses its heartbeat; continued, whatever it still sends is kept at most once", async () => {
    const { dir, started } = await fleet(2, { heartbeat_s: 2, stall_s: 30 });
    const env = makeFixtureEnv(6, 0.4, dir);
    const pool = loadPool("lab", {}, path.join(dir, "runners.yaml"));
    const [r0] = started;
    let stoppedAt = 0;
    const { runDir, record } = await runOnPool({
      pool,
      envDir: env,
      request: { policy: "oracle", k: 4, concurrency: 2, sandbox: "process", executor: "local" },
      runsDir: path.join(dir, "runs"),
      signal: AbortSignal.timeout(200_000),
      keepShards: true,
      onProgress: (p) => {
        if (!stoppedAt && p.shards.some((s) => s.member === "r0" && s.kept >= 1)) {
          stoppedAt = Date.now();
          signal(r0?.proc.pid, "SIGSTOP");
        }
        // Once its shard moved, r0 is continued: it may still finish (and send) rollouts the other member also ran.
        if (stoppedAt && p.failovers.some((f) => f.member === "r0")) signal(r0?.proc.pid, "SIGCONT");
      },
    });
    signal(r0?.proc.pid, "SIGCONT");
    assert.equal(record.state, "completed", record.error);
    checkMerged(runDir, 6, 4);
    assert.ok(record.failovers.some((f) => f.member === "r0" && /stopped answering/.test(f.reason)));
    // The runner came back: its health is up again.
    await waitFor(
      "r0 answers again",
      async () => ((await pool.members[0]?.client.status(2000).catch(() => undefined)) ? true : undefined),
      20_000,
    );
  });
});
