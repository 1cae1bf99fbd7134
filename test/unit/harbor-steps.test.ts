// Harbor's multi-step tasks ([[steps]]): each step's instruction, tests, oracle and workdir
// read as Harbor's MultiStepTrial reads them, the min_reward gate and the reward aggregation
// copied from its source (missing keys are 0 in the mean, a missing gated key is -inf).
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileText } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { importHarbor } from "../../src/core/harbor/import";
import { parseTaskConfig } from "../../src/core/harbor/task-config";
import { aggregate, scoreRollout } from "../../src/core/reward/score";
import type { Sandbox } from "../../src/core/model/sandbox";
import { aggregateStageRewards, gateFailure, type StageResult, stageComponents, type TaskStages } from "../../src/core/model/task-stages";

const FIXTURE = path.join(__dirname, "../fixtures/harbor-multistep/notes-pipeline");

const stage = (name: string, minReward?: number | Record<string, number>) => ({
  name,
  prompt: name,
  ...(minReward !== undefined ? { minReward } : {}),
});
const result = (name: string, rewards: Record<string, number> | null): StageResult => ({ stage: stage(name), rewards, components: [] });

test("the gate: a number gates 'reward', a table each key it names; a missing key or no result is -inf", () => {
  assert.equal(gateFailure({ reward: 1 }, 1), null);
  assert.equal(gateFailure({ reward: 0.5 }, undefined), null);
  assert.match(gateFailure({ reward: 0.5 }, 1) ?? "", /reward=0.5 below min_reward 1/);
  assert.match(gateFailure({ other: 1 }, 0) ?? "", /reward=missing below min_reward 0/);
  assert.match(gateFailure(null, 0) ?? "", /missing/);
  assert.equal(gateFailure({ a: 1, b: 0.7 }, { a: 1, b: 0.5 }), null);
  assert.match(gateFailure({ a: 1, b: 0.4 }, { a: 1, b: 0.5 }) ?? "", /^b=0.4 below/);
  assert.match(gateFailure({ a: 1 }, { a: 1, b: 0 }) ?? "", /^b=missing/);
});

test("aggregation: per-key mean over the scored steps (a key a step lacks is 0 there), or the last step's", () => {
  const results = [result("s1", { reward: 1, style: 1 }), result("s2", { reward: 0.5 }), result("s3", null)];
  assert.deepEqual(aggregateStageRewards(results, "mean"), { reward: 0.75, style: 0.5 });
  assert.equal(aggregateStageRewards(results, "final"), null);
  assert.deepEqual(aggregateStageRewards(results.slice(0, 2), "final"), { reward: 0.5 });
  assert.equal(aggregateStageRewards([], "mean"), null);
  assert.equal(aggregateStageRewards([result("s1", null)], "mean"), null);
  assert.equal(aggregateStageRewards([result("s1", {})], "mean"), null);
});

test("components: the aggregated keys count, every step is shown with weight 0, the gated-out ones 0 with why", () => {
  const stages: TaskStages = { list: [stage("a", 1), stage("b"), stage("c")], strategy: "mean" };
  const comps = stageComponents(stages, [result("a", { reward: 1 }), result("b", { reward: 0 })], "step b: stopped");
  assert.deepEqual(
    comps.map((c) => [c.name, c.weight, c.score, c.skipped ?? (c.reason?.startsWith("not played") ? c.reason : null)]),
    [
      ["reward", 1, 0.5, null],
      ["step a", 0, 1, null],
      ["step b", 0, 0, null],
      ["step c", 0, 0, "not played: step b: stopped"],
    ],
  );
  assert.equal(aggregate(comps), 0.5);
  // Raw values above 1 are clamped in the score, kept in the reason.
  const over = stageComponents({ list: [stage("a")], strategy: "final" }, [result("a", { reward: 3 })]);
  assert.equal(over[0]?.score, 1);
  assert.match(over[0]?.reason ?? "", /reward=3/);
  // No step scored (the first step's verifier crashed): one failing component carrying the error.
  const none = stageComponents(stages, [{ stage: stage("a"), rewards: null, components: [], error: "setup.sh exited 2" }]);
  assert.equal(aggregate(none), 0);
  assert.equal(none[0]?.error, "setup.sh exited 2");
});

test("the sample multi-step task loads as stages: step prompts, merged tests, per-step oracle with the shared fallback, workdir and setup", () => {
  const { env, problems } = loadEnvironment(FIXTURE);
  assert.deepEqual(
    problems.filter((p) => p.severity === "error"),
    [],
  );
  assert.ok(env);
  const task = env.tasks[0];
  assert.ok(task?.stages);
  const [create, append, count] = task.stages.list;
  assert.deepEqual(
    task.stages.list.map((s) => s.name),
    ["create", "append", "count"],
  );
  assert.equal(task.stages.strategy, "mean");
  assert.equal(task.prompt, create?.prompt);
  assert.match(create?.prompt ?? "", /alpha/);
  // A step's tests are the shared tests/ with its own over them; the step without test.sh runs the shared one.
  assert.deepEqual(Object.keys(create?.tests?.files ?? {}).sort(), ["lib.sh", "test.sh"]);
  assert.match(fileText(create?.tests?.files?.["test.sh"] ?? "") ?? "", /alpha/);
  assert.match(fileText(count?.tests?.files?.["test.sh"] ?? "") ?? "", /count\.txt/);
  // The oracle: the step's own solution/, else the top-level one.
  assert.match(
    create?.solution?.commands?.[0] ?? "",
    new RegExp(Buffer.from("echo alpha > /app/notes.txt\n").toString("base64").slice(0, 16)),
  );
  assert.match(
    count?.solution?.commands?.[0] ?? "",
    new RegExp(Buffer.from("#!/bin/bash\n# The shared solution").toString("base64").slice(0, 16)),
  );
  assert.deepEqual(Object.keys(append?.files ?? {}).sort(), ["seed-word.txt", "setup.sh"]);
  assert.equal(append?.setup, "bash ./setup.sh");
  assert.equal(create?.setup, undefined);
  // Gates as written, the step's verifier timeout and env over the task's.
  assert.equal(create?.minReward, 1);
  assert.deepEqual(append?.minReward, { reward: 1 });
  assert.equal(count?.minReward, undefined);
  assert.deepEqual(
    append?.reward?.map((r) => [r.type, r.timeout, r.type === "harbor" ? r.env : null]),
    [["harbor", 30, { NOTES_FILE: "/app/notes.txt", EXPECTED_LINES: "2" }]],
  );
  assert.equal(create?.reward?.[0]?.timeout, 60);
  // Three steps of 120 s each: the rollout's deadline is their sum.
  assert.equal(env.manifest.sandbox.timeouts.rollout, 360);
  assert.equal(env.manifest.sandbox.timeouts.step, 120);
});

function copyFixture(): { dir: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-steps-"));
  const dir = path.join(root, "notes-pipeline");
  cpSync(FIXTURE, dir, { recursive: true });
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

test("a step without its folder, instruction or test.sh is an error at its own [[steps]] entry", () => {
  const { dir, cleanup } = copyFixture();
  try {
    const toml = `schema_version = "1.3"\n[[steps]]\nname = "create"\n\n[[steps]]\nname = "nowhere"\n\n[[steps]]\nname = "count"\n`;
    writeFileSync(path.join(dir, "task.toml"), toml);
    rmSync(path.join(dir, "tests", "test.sh"));
    const { env, problems } = loadEnvironment(dir);
    assert.equal(env, null);
    const errors = problems.filter((p) => p.severity === "error").map((p) => [p.line, p.message]);
    assert.equal(errors.length, 2, JSON.stringify(errors));
    assert.deepEqual(errors[0]?.[0], 6);
    assert.match(String(errors[0]?.[1]), /step 'nowhere': steps\/nowhere\/ is missing/);
    assert.deepEqual(errors[1]?.[0], 9);
    assert.match(String(errors[1]?.[1]), /step 'count': neither steps\/count\/tests\/test.sh nor tests\/test.sh/);
  } finally {
    cleanup();
  }
});

test("[[steps]] fields: duplicate names, a bad min_reward, a bad strategy are errors; unhonoured fields warnings at their step", () => {
  const text = [
    'schema_version = "1.3"',
    'multi_step_reward_strategy = "max"',
    "[[steps]]",
    'name = "a"',
    "min_reward = 1.0",
    "[[steps]]",
    'name = "a"',
    'min_reward = "high"',
    "healthcheck = { command = 'true' }",
    "[steps.agent]",
    'user = "agent"',
    "timeout_sec = 30",
    "[steps.verifier]",
    "timeout_sec = -1",
  ].join("\n");
  const { config, problems } = parseTaskConfig("/t/task.toml", text);
  const at = problems.map((p) => `${p.severity}:${p.line}:${p.message}`);
  const has = (re: RegExp) =>
    assert.ok(
      at.some((x) => re.test(x)),
      `${re} not in ${JSON.stringify(at, null, 1)}`,
    );
  has(/^error:2:.*must be "mean" or "final"/);
  has(/^error:7:step 'a' is named twice/);
  has(/^error:8:step 'a': min_reward must be a number or a table/);
  has(/^warning:9:step 'a': read but not supported here: the step's health check/);
  has(/^warning:11:step 'a': read but not supported here: the agent runs as root/);
  has(/^error:14:step 'a': timeout_sec must be a positive number/);
  assert.deepEqual(
    config?.steps.map((s) => [s.name, s.minReward ?? null, s.agentTimeoutSec ?? null]),
    [
      ["a", 1, null],
      ["a", null, 30],
    ],
  );
});

test("import refuses a multi-step task by name instead of keeping only its first step", () => {
  const out = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-import-"));
  try {
    const r = importHarbor([FIXTURE], out);
    assert.deepEqual(r.written, []);
    assert.match(r.failed[0]?.message ?? "", /a multi-step task \(3 \[\[steps\]\]\) has no native layout here/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("a step name is any one folder name: spaces are fine, a path that climbs out is an error", () => {
  const ok = parseTaskConfig("/t/task.toml", '[[steps]]\nname = "step one"\n');
  assert.deepEqual(
    ok.problems.filter((p) => p.severity === "error"),
    [],
  );
  for (const name of ["../x", "a/b", "..", "."]) {
    const bad = parseTaskConfig("/t/task.toml", `[[steps]]\nname = ${JSON.stringify(name)}\n`);
    assert.ok(
      bad.problems.some((p) => p.severity === "error" && p.line === 2 && /one folder name under steps/.test(p.message)),
      name,
    );
  }
});

test("on the process backend a Harbor task's verifier says it needs docker instead of failing to make /tests", async () => {
  const { env } = loadEnvironment(FIXTURE);
  const task = env?.tasks[0];
  assert.ok(env && task);
  const sandbox = { backend: "process", workdir: "/tmp" } as unknown as Sandbox;
  const score = await scoreRollout(env.manifest.reward, {
    env,
    task,
    sandbox: async () => sandbox,
    state: new Map(),
    answer: undefined,
    events: [],
    signal: new AbortController().signal,
  });
  assert.equal(score.total, 0);
  assert.match(score.components[0]?.error ?? "", /runs on the docker backend only .* not process/);
});
