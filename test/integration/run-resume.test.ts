import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { resumableRecord } from "../../src/core/rollout/resume-run";
import { readRun, rolloutFiles } from "../../src/core/runs/run-dir";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { currentOwner } from "../../src/core/util/owner";
import { runDashboard } from "../../src/core/view/server/run-folder";
import { summariseFile } from "../../src/core/view/server/rollout-summary";
import { listRunFolders } from "../../src/core/runs/run-listing";
import { writeRunFolder } from "../support/run-folder";
import { FIXTURE, processProvider, tmp } from "./rollout-helpers";
import { rlenvArgv } from "../support/cli";

/**
 * A run whose process is killed outright (kill -9: no handler runs, run.json keeps saying
 * `running`) reads as `interrupted` everywhere, and `rlenv run --resume` finishes it: the
 * rollouts that ended are kept, the unfinished ones run again, each rollout once.
 */
const ROOT = path.join(__dirname, "../..");

function rlenv(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
} {
  const child = spawn(...rlenvArgv(args), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

async function until(cond: () => boolean, what: string, ms = 120_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The rollout fixture with six tasks whose oracle first sleeps, so a kill lands between rollouts ending. */
function slowEnvDir(): string {
  const dir = tmp("rlenv-resume-env-");
  writeFileSync(path.join(dir, "environment.yaml"), readFileSync(path.join(FIXTURE, "environment.yaml")));
  const check = { "tests_hidden/check.py": "import sys\nsys.exit(0 if open('greet.txt').read().strip() == 'hello world' else 1)\n" };
  const tasks = Array.from({ length: 6 }, (_, i) => ({
    id: `t${i}`,
    prompt: "Make greet.txt say 'hello world', then submit 42.",
    files: { "greet.txt": "hello\n" },
    tests: { files: check },
    target: "42",
    solution: {
      tool_calls: [
        { name: "slow", arguments: { seconds: 1 } },
        { name: "put", arguments: { path: "greet.txt", text: "hello world\n" } },
      ],
      answer: "42",
    },
  }));
  writeFileSync(path.join(dir, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  return dir;
}

const ended = (file: string) => readTrajectory(file).events.some((e) => e.type === "end");

test("kill -9 of rlenv run: the run reads as interrupted with the rollouts that ended, and --resume finishes each missing rollout once", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  await p.provider.shutdown();
  const envDir = slowEnvDir();
  const runsDir = tmp("rlenv-resume-runs-");
  const runDir = path.join(runsDir, "r1");
  const first = rlenv([
    "run",
    envDir,
    "--policy",
    "oracle",
    "--sandbox",
    "process",
    "--concurrency",
    "2",
    "--runs",
    runsDir,
    "--run-id",
    "r1",
  ]);
  // Killed once some rollouts ended and others are under way.
  await until(() => {
    const files = existsSync(runDir) ? rolloutFiles(runDir) : [];
    return files.filter(ended).length >= 2 && files.some((f) => !ended(f));
  }, "two ended rollouts and one under way");
  first.child.kill("SIGKILL");
  const killed = await first.done;
  assert.equal(killed.signal, "SIGKILL");

  const written = JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")) as { status: string; owner?: { pid: number } };
  assert.equal(written.status, "running", "nothing ran to write an end: the file still says running");
  assert.equal(written.owner?.pid, first.child.pid);
  const before = new Map(
    rolloutFiles(runDir)
      .filter(ended)
      .map((f) => [path.basename(f), readFileSync(f, "utf8")]),
  );
  const unfinished = rolloutFiles(runDir)
    .filter((f) => !ended(f))
    .map((f) => path.basename(f));
  assert.ok(before.size >= 2 && unfinished.length >= 1);

  // Every reader: the core's (view, export), the editor's Runs view.
  const read = readRun(runDir);
  assert.equal(read.record.status, "interrupted");
  assert.equal(read.summary?.statuses.completed, before.size);
  assert.equal((read.summary?.statuses as Record<string, number> | undefined)?.interrupted, unfinished.length);
  assert.equal(read.summary?.mean_reward, 1, "the rollouts that ended, scored");
  assert.equal(listRunFolders(runsDir)[0]?.record?.status, "interrupted");
  const dash = await runDashboard(runDir, "r1", (files) => Promise.all(files.map(summariseFile)));
  assert.equal(dash.record?.status, "interrupted");
  assert.deepEqual(
    dash.rollouts.map((row) => row.status).sort(),
    [...Array(before.size).fill("completed"), ...Array(unfinished.length).fill("interrupted")].sort(),
    "the dashboard's rollouts that never ended are interrupted, not running",
  );

  const resumed = rlenv(["run", "--resume", runDir, "--json"]);
  const r = await resumed.done;
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    status: string;
    summary: { rollouts: number; mean_reward: number; statuses: Record<string, number> };
  };
  assert.equal(out.status, "completed");
  assert.deepEqual(out.summary.statuses, { completed: 6 });
  assert.equal(out.summary.rollouts, 6);
  assert.equal(out.summary.mean_reward, 1);
  assert.match(r.stderr, new RegExp(`resuming r1: ${before.size} rollouts kept, ${6 - before.size} to run`));

  // Each rollout exactly once; the ones that had ended are untouched; the cut ones kept aside.
  const files = rolloutFiles(runDir).map((f) => path.basename(f));
  assert.deepEqual(files, ["t0.s0.jsonl", "t1.s0.jsonl", "t2.s0.jsonl", "t3.s0.jsonl", "t4.s0.jsonl", "t5.s0.jsonl"]);
  for (const [name, text] of before)
    assert.equal(readFileSync(path.join(runDir, "rollouts", name), "utf8"), text, `${name} kept as it was`);
  const aside = readdirSync(path.join(runDir, "attempts")).sort();
  assert.deepEqual(
    aside,
    unfinished.map((n) => n.replace(/\.jsonl$/, ".interrupted1.jsonl")),
  );
  for (const n of unfinished) {
    const start = readTrajectory(path.join(runDir, "rollouts", n)).events.find((e) => e.type === "start");
    assert.equal(start?.type === "start" && start.previous_attempts?.[0]?.file, `attempts/${n.replace(/\.jsonl$/, ".interrupted1.jsonl")}`);
  }
  const rec = readRun(runDir).record;
  assert.equal(rec.status, "completed");
  assert.equal(rec.resumed?.length, 1);
  assert.throws(() => resumableRecord(path.join(runsDir, "nope")), /not a run folder/);
});

test("a run whose recorded owner still runs is not interrupted, and cannot be resumed; a reused pid does not pass for the owner", () => {
  const runsDir = tmp("rlenv-resume-owner-");
  const write = (id: string, owner: { pid: number; start: string | null; host: string }) => {
    const dir = path.join(runsDir, id);
    writeRunFolder(dir, { id, status: "running", owner });
    return dir;
  };
  const host = hostname();
  const live = write("live", { ...currentOwner(), host });
  assert.equal(readRun(live).record.status, "running");
  assert.throws(() => resumableRecord(live), /still running \(pid/);
  // This very pid with another start time: a different process that got the dead owner's pid.
  const reused = write("reused", { pid: process.pid, start: "1", host });
  assert.equal(readRun(reused).record.status, "interrupted");
  assert.equal(resumableRecord(reused).id, "reused");
  // Another host's run cannot be judged from here.
  const remote = write("remote", { pid: 999_999_999, start: "1", host: `not-${host}` });
  assert.equal(readRun(remote).record.status, "running");
});
