// A multi-step Harbor task ([[steps]]) run on Docker as one rollout: each step's instruction in
// turn, its workdir and setup.sh, its oracle, its tests; the min_reward gate ends the rollout
// at the first step that falls short, and the reward is Harbor's mean over the scored steps.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";

const FIXTURE = path.join(__dirname, "../fixtures/harbor-multistep/notes-pipeline");

interface Reward {
  total: number;
  components: Array<{ name: string; weight: number; score: number; skipped?: string; reason?: string }>;
}

function rewardsIn(runs: string): Array<{ policy: string; reward: Reward; prompts: string[] }> {
  return readdirSync(runs).flatMap((run) =>
    readdirSync(path.join(runs, run, "rollouts")).map((f) => {
      const events = readFileSync(path.join(runs, run, "rollouts", f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; role?: string; content?: string; policy?: { kind: string } } & Reward);
      return {
        policy: events.find((e) => e.type === "start")?.policy?.kind ?? "",
        reward: events.find((e) => e.type === "reward") as Reward,
        prompts: events.filter((e) => e.type === "message" && e.role === "user").map((e) => String(e.content)),
      };
    }),
  );
}

const summary = (r: Reward) => [
  r.total,
  r.components.map((c) => [c.name, c.weight, c.score, c.skipped ?? (c.reason?.startsWith("not played") ? c.reason : null)]),
];

test("a multi-step Harbor task on docker: the oracle plays every step (1), nop stops at the first gate (0)", {
  skip: missing("docker") || missing("image"),
  timeout: 600_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-steps-"));
  try {
    const tasks = path.join(root, "tasks");
    cpSync(FIXTURE, path.join(tasks, "notes-pipeline"), { recursive: true });
    const runs = path.join(root, "runs");
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, tasks], { timeoutMs: 580_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
    assert.match(r.stdout, /✓ notes-pipeline\/notes-pipeline: oracle 1, nop 0/);
    const got = rewardsIn(runs);
    const oracle = got.find((g) => g.policy === "oracle");
    const nop = got.find((g) => g.policy === "nop");
    assert.ok(oracle && nop);
    // Each step's instruction is said in turn; the nop never gets past the first.
    assert.equal(oracle.prompts.length, 3);
    assert.match(oracle.prompts[1] ?? "", /word\.txt/);
    assert.equal(nop.prompts.length, 1);
    assert.deepEqual(summary(oracle.reward), [
      1,
      [
        ["reward", 1, 1, null],
        ["step create", 0, 1, null],
        ["step append", 0, 1, null],
        ["step count", 0, 1, null],
      ],
    ]);
    assert.deepEqual(summary(nop.reward), [
      0,
      [
        ["reward", 1, 0, null],
        ["step create", 0, 0, null],
        ["step append", 0, 0, "not played: step create: reward=0 below min_reward 1"],
        ["step count", 0, 0, "not played: step create: reward=0 below min_reward 1"],
      ],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a step the oracle fails stops the rollout at its gate: the reward is the mean over the steps played", {
  skip: missing("docker") || missing("image"),
  timeout: 600_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-steps-"));
  try {
    const task = path.join(root, "tasks", "notes-pipeline");
    cpSync(FIXTURE, task, { recursive: true });
    // The second step's oracle does nothing: its tests score 0, below its min_reward.
    writeFileSync(path.join(task, "steps/append/solution/solve.sh"), "#!/bin/bash\ntrue\n");
    const runs = path.join(root, "runs");
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, path.join(root, "tasks")], { timeoutMs: 580_000 });
    assert.notEqual(r.code, 0, r.stdout);
    const oracle = rewardsIn(runs).find((g) => g.policy === "oracle");
    assert.ok(oracle);
    assert.deepEqual(summary(oracle.reward), [
      0.5,
      [
        ["reward", 1, 0.5, null],
        ["step create", 0, 1, null],
        ["step append", 0, 0, null],
        ["step count", 0, 0, "not played: step append: reward=0 below min_reward 1"],
      ],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a step past its own agent timeout is cut there, its tests still run, and the next step follows", {
  skip: missing("docker") || missing("image"),
  timeout: 600_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-steps-"));
  try {
    const task = path.join(root, "tasks", "notes-pipeline");
    cpSync(FIXTURE, task, { recursive: true });
    // The first step's oracle outlasts the step's 3 s; no gate on it, so the rollout goes on to the second.
    const toml = readFileSync(path.join(task, "task.toml"), "utf8").replace(
      'name = "create"\nmin_reward = 1.0',
      'name = "create"\n\n[steps.agent]\ntimeout_sec = 3.0',
    );
    writeFileSync(path.join(task, "task.toml"), toml);
    writeFileSync(path.join(task, "steps/create/solution/solve.sh"), "#!/bin/bash\nsleep 30\necho alpha > /app/notes.txt\n");
    const runs = path.join(root, "runs");
    rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, path.join(root, "tasks")], { timeoutMs: 580_000 });
    const oracle = rewardsIn(runs).find((g) => g.policy === "oracle");
    assert.ok(oracle);
    assert.equal(oracle.prompts.length, 2, "the second step's instruction was given after the first timed out");
    // The second step ran its own oracle (appending the word) but notes.txt lacks the first line: its test scores 0 and its gate stops the third.
    assert.deepEqual(summary(oracle.reward), [
      0,
      [
        ["reward", 1, 0, null],
        ["step create", 0, 0, null],
        ["step append", 0, 0, null],
        ["step count", 0, 0, "not played: step append: reward=0 below min_reward 1"],
      ],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
