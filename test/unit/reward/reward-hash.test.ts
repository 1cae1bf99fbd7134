// The reward definition's hash: the same definition hashes the same, whatever else changes;
// a changed verifier, comparator setting, hidden test, target or named file shows.
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import type { Environment } from "../../../src/core/model/environment";
import { canonicalJson, rewardDefinition, rewardHash, taskRewardHash } from "../../../src/core/reward/reward-hash";
import { FIXTURE, fixtureEnv, tmp, variant } from "../../integration/rollout-helpers";

const load = (dir: string): Environment => {
  const { env, problems } = loadEnvironment(dir);
  if (!env) throw new Error(JSON.stringify(problems));
  return env;
};

test("canonical JSON sorts keys at every depth and drops undefined members", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: undefined }], c: null } }), '{"a":{"c":null,"d":[2,{"y":1}]},"b":1}');
});

test("the same folder loaded twice hashes the same; the prompt and tools are not part of it", () => {
  const a = fixtureEnv();
  const b = fixtureEnv();
  assert.match(rewardHash(a), /^[0-9a-f]{16}$/);
  assert.equal(rewardHash(a), rewardHash(b));
  const prompts = { ...a, prompts: { system: "something else", user: "{{task.prompt}} please" } };
  assert.equal(rewardHash(prompts), rewardHash(a));
  const tools = variant((m) => ({ tools: m.tools.slice(0, 2), max_turns: 3 }));
  assert.equal(rewardHash(tools), rewardHash(a));
});

test("a verifier's weight or comparator setting, the judge settings and a task's target each change it", () => {
  const base = rewardHash(fixtureEnv());
  const weight = variant((m) => ({ reward: m.reward.map((v, i) => (i === 0 ? { ...v, weight: 2 } : v)) }));
  assert.notEqual(rewardHash(weight), base);
  const judge = variant((m) => ({ judge: { ...m.judge, hack_signals: "zero" as const } }));
  assert.notEqual(rewardHash(judge), base);
  const env = fixtureEnv();
  const [first, ...rest] = env.tasks;
  const moved = { ...env, tasks: [{ ...first!, target: { answer: "43" } }, ...rest] };
  assert.notEqual(rewardHash(moved), base);
  // Only that task's own part moves.
  assert.notEqual(taskRewardHash(moved, moved.tasks[0]!), taskRewardHash(env, first!));
  if (rest[0]) assert.equal(taskRewardHash(moved, moved.tasks[1]!), taskRewardHash(env, rest[0]));
});

test("a file a verifier command names is hashed by its bytes: editing it changes the hash", () => {
  const dir = tmp("rlenv-rhash-");
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(path.join(dir, "grade.py"), "print(1)\n");
  const yaml = path.join(dir, "environment.yaml");
  writeFileSync(yaml, `${readFileSync(yaml, "utf8")}\n  - type: script\n    name: graded\n    command: python3 grade.py\n`);
  const before = load(dir);
  const files = rewardDefinition(before).files as Array<{ path: string }>;
  assert.ok(
    files.some((f) => f.path === "grade.py"),
    JSON.stringify(files),
  );
  const hashed = rewardHash(before);
  writeFileSync(path.join(dir, "grade.py"), "print(0.5)\n");
  assert.notEqual(rewardHash(load(dir)), hashed);
});
