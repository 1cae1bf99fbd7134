import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { readOutcomes, readRun, rolloutFiles, summarizeRunDir } from "../../src/core/runs/run-dir";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { callTool, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { FIXTURE, processProvider, tmp } from "./rollout-helpers";
import { rlenvArgv } from "../support/cli";

const ROOT = path.join(__dirname, "../..");
const servers: ScriptedServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

function rlenv(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(...rlenvArgv(args), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
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

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sandboxSkip = async () => {
  const p = await processProvider();
  if ("skip" in p) return p.skip;
  await p.provider.shutdown();
  return false;
};

test("rlenv run + export: plain progress lines off a TTY, summary, chat JSONL filtered by reward", async (t) => {
  const skip = await sandboxSkip();
  if (skip) return t.skip(skip);
  const runs = tmp("rlenv-cli-");
  const r = await rlenv([
    "run",
    FIXTURE,
    "--policy",
    "oracle",
    "--sandbox",
    "process",
    "--runs",
    runs,
    "--run-id",
    "r1",
    "-k",
    "2",
    "--tasks",
    "via-files",
    "via-patch",
  ]).done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /completed reward=1\.000 via-files #0/);
  assert.match(r.stderr, /completed: 4 rollouts .* mean reward 1\.000 +pass@1 1\.000 +pass@2 1\.000/);
  assert.equal(r.stdout.trim(), path.join(runs, "r1"));
  const summary = JSON.parse(readFileSync(path.join(runs, "r1", "summary.json"), "utf8")) as {
    per_task: Array<{ task: string; n: number }>;
  };
  assert.deepEqual(
    summary.per_task.map((x) => [x.task, x.n]),
    [
      ["via-files", 2],
      ["via-patch", 2],
    ],
  );
  const ex = await rlenv(["export", path.join(runs, "r1"), "--format", "chat-jsonl", "--min-reward", "1"]).done;
  assert.equal(ex.code, 0, ex.stderr);
  assert.equal(ex.stdout.trim().split("\n").length, 4);
  const none = await rlenv([
    "run",
    FIXTURE,
    "--policy",
    "nop",
    "--sandbox",
    "process",
    "--runs",
    runs,
    "--run-id",
    "r2",
    "--tasks",
    "via-files",
  ]).done;
  assert.equal(none.code, 0);
  const ex2 = await rlenv(["export", path.join(runs, "r2"), "--min-reward", "0.5"]).done;
  assert.equal(ex2.stdout, "");
  assert.match(ex2.stderr, /exported 0 rollouts/);
  const bad = await rlenv(["run", FIXTURE, "--tasks", "nope", "--sandbox", "process", "--runs", runs]).done;
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown task id 'nope'/);
});

test("rlenv validate --run: oracle solves, nop does not", async (t) => {
  const skip = await sandboxSkip();
  if (skip) return t.skip(skip);
  const r = await rlenv(["validate", "--run", "--sandbox", "process", "--json", FIXTURE]).done;
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    ok: boolean;
    run: { environments: Array<{ tasks: Array<{ id: string; oracle: number; nop: number; ok: boolean }> }> };
  };
  assert.equal(out.ok, true);
  assert.deepEqual(
    out.run.environments[0]?.tasks.map((x) => [x.id, x.oracle, x.nop]),
    [
      ["via-commands", 1, 0],
      ["via-files", 1, 0],
      ["via-patch", 1, 0],
      ["via-tool-calls", 1, 0],
    ],
  );
});

test("rlenv validate --run: its runs go when every task passed, stay (and are named) when one failed, and stay in --runs", async (t) => {
  const skip = await sandboxSkip();
  if (skip) return t.skip(skip);
  const scratch = tmp("rlenv-validate-tmpdir-"); // the child's TMPDIR, where its temporary runs folder goes
  const leftovers = () => readdirSync(scratch).filter((n) => n.startsWith("rlenv-validate-"));
  // The folder first: --tasks takes every word after it.
  const args = (dir: string, ...more: string[]) => ["validate", dir, "--run", "--sandbox", "process", ...more, "--tasks", "via-files"];
  const pass = await rlenv(args(FIXTURE, "--json"), { TMPDIR: scratch }).done;
  assert.equal(pass.code, 0, pass.stderr);
  const passed = JSON.parse(pass.stdout) as { run: { runs_dir?: string; environments: Array<{ ok: boolean; runs?: unknown }> } };
  assert.equal(passed.run.environments[0]?.ok, true);
  assert.equal(passed.run.runs_dir, undefined);
  assert.equal(passed.run.environments[0]?.runs, undefined);
  assert.deepEqual(leftovers(), []);

  // The oracle answers 42; this copy expects 43, so the oracle fails and its trajectory is the evidence.
  const broken = path.join(tmp("rlenv-validate-env-"), "env");
  cpSync(FIXTURE, broken, { recursive: true });
  const tasks = path.join(broken, "tasks.jsonl");
  writeFileSync(tasks, readFileSync(tasks, "utf8").replace(/("id": "via-files".*"target": )"42"/, '$1"43"'));
  const fail = await rlenv(args(broken), { TMPDIR: scratch }).done;
  assert.equal(fail.code, 1, fail.stderr);
  assert.match(
    fail.stdout,
    /✗ rollout-fixture\/via-files: oracle 0\.5, nop 0 — oracle scored 0\.5, needs ≥ 1 — answer: expected 43, got 42$/m,
  );
  const kept = /trajectories kept in (\S+):/.exec(fail.stderr)?.[1] ?? "";
  assert.match(fail.stderr, /rlenv view \S+ {3}# rollout-fixture, oracle/);
  assert.deepEqual(leftovers(), [path.basename(kept)]);
  assert.equal(readdirSync(kept).length, 2, "the oracle's run and the nop's");

  const runs = path.join(scratch, "asked");
  const asked = await rlenv(args(FIXTURE, "--json", "--runs", runs), { TMPDIR: scratch }).done;
  assert.equal(asked.code, 0, asked.stderr);
  const out = JSON.parse(asked.stdout) as { run: { runs_dir?: string; environments: Array<{ runs?: { oracle: string; nop: string } }> } };
  assert.equal(out.run.runs_dir, runs);
  assert.equal(path.dirname(out.run.environments[0]?.runs?.oracle ?? ""), runs);
  assert.equal(readdirSync(runs).length, 2);
});

test("SIGKILL mid-rollout leaves every trajectory readable up to its last line", async (t) => {
  const skip = await sandboxSkip();
  if (skip) return t.skip(skip);
  const s = await startScriptedServer((req) =>
    req.messages.some((m) => m.role === "tool") ? { hang: true } : callTool("put", { path: "greet.txt", text: "hello world" }),
  );
  servers.push(s);
  const runs = tmp("rlenv-cli-");
  const { child, done } = rlenv([
    "run",
    FIXTURE,
    "--policy",
    "openai",
    "--model",
    "m",
    "--base-url",
    s.baseURL,
    "--sandbox",
    "process",
    "--runs",
    runs,
    "--run-id",
    "killed",
    "-k",
    "2",
    "--concurrency",
    "2",
    "--tasks",
    "via-files",
  ]);
  await until(() => s.requests.length >= 4);
  child.kill("SIGKILL");
  const r = await done;
  assert.equal(r.signal, "SIGKILL");
  const runDir = path.join(runs, "killed");
  // run.json still says running (nothing ran to change it); its owner is gone, so it reads as interrupted.
  assert.equal(readRun(runDir).record.status, "interrupted");
  const files = rolloutFiles(runDir);
  assert.equal(files.length, 2);
  for (const f of files) {
    const tr = readTrajectory(f);
    assert.deepEqual(tr.bad, [], f);
    assert.equal(tr.torn, false);
    assert.deepEqual(
      tr.events.map((e) => e.type),
      ["start", "message", "message", "message", "tool_call", "observation", ...(tr.events.length > 6 ? ["message"] : [])].slice(
        0,
        tr.events.length,
      ),
    );
    assert.ok(!tr.events.some((e) => e.type === "end"));
  }
  assert.deepEqual(
    readOutcomes(runDir).map((o) => o.status),
    ["interrupted", "interrupted"],
  );
  assert.equal((summarizeRunDir(runDir).statuses as Record<string, number>).interrupted, 2);
});

test("Ctrl-C: rollouts end cancelled, run.json says cancelled, exit code 130", async (t) => {
  const skip = await sandboxSkip();
  if (skip) return t.skip(skip);
  const s = await startScriptedServer([{ hang: true }]);
  servers.push(s);
  const runs = tmp("rlenv-cli-");
  const { child, done } = rlenv([
    "run",
    FIXTURE,
    "--policy",
    "openai",
    "--model",
    "m",
    "--base-url",
    s.baseURL,
    "--sandbox",
    "process",
    "--runs",
    runs,
    "--run-id",
    "ctrlc",
    "--tasks",
    "via-files",
    "via-patch",
  ]);
  await until(() => s.requests.length >= 2);
  child.kill("SIGINT");
  const r = await done;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /stopping: closing sandboxes/);
  const runDir = path.join(runs, "ctrlc");
  assert.equal(readRun(runDir).record.status, "cancelled");
  for (const f of rolloutFiles(runDir)) {
    const end = readTrajectory(f).events.at(-1);
    assert.equal(end?.type === "end" && end.status, "cancelled");
  }
});
