import assert from "node:assert/strict";
import { test } from "node:test";
import { type JudgedRollout, judgeTask, meanReward, verdictLine } from "../../src/core/app/verdict";

const r = (reward: number | null, extra: Partial<JudgedRollout> = {}): JudgedRollout => ({
  task: "t",
  status: "completed",
  reward,
  ...extra,
});
const judged = (name: string, skipped?: string) => ({
  name,
  type: "fields",
  weight: 1,
  score: 0,
  ...(skipped ? { skipped } : {}),
});

test("valid when the oracle reaches min and nop stays at or under max", () => {
  const v = judgeTask("t", r(1), r(0), 1, 0);
  assert.equal(v.ok, true);
  assert.deepEqual(v.problems, []);
  assert.equal(verdictLine(v, 1, 0), "oracle 1 ≥ 1, nop 0 ≤ 0");
});

test("a weak oracle, a winning nop, or a missing rollout each fail with the reason", () => {
  assert.deepEqual(judgeTask("t", r(0.5, { failure: "tests: 1/2 passed" }), r(0), 1, 0).problems, [
    "oracle scored 0.5, needs ≥ 1 — tests: 1/2 passed",
  ]);
  assert.deepEqual(judgeTask("t", r(1), r(1), 1, 0).problems, ["nop scored 1, must be ≤ 0"]);
  assert.deepEqual(judgeTask("t", undefined, r(0), 1, 0).problems, ["oracle did not run"]);
  assert.deepEqual(judgeTask("t", r(null, { status: "timeout", reason: "rollout timed out" }), r(0), 1, 0).problems, [
    "oracle scored timeout, needs ≥ 1 (rollout timed out)",
  ]);
  assert.deepEqual(judgeTask("t", r(1), r(null, { status: "error" }), 1, 0).problems, ["nop scored error, must be ≤ 0"]);
  assert.deepEqual(judgeTask("t", r(1), undefined, 1, 0).problems, ["nop scored undefined, must be ≤ 0"]);
});

test("an oracle that could not be graded is no verdict on the oracle, but nop must still fail", () => {
  const skipped = r(0, { components: [judged("answer", "no judge endpoint"), judged("total")] });
  const v = judgeTask("t", skipped, r(0), 1, 0);
  assert.equal(v.ok, true);
  assert.equal(v.skipped, "no judge endpoint");
  assert.match(verdictLine(v, 1, 0), /oracle not graded \(no judge endpoint\)/);
  const winningNop = judgeTask("t", skipped, r(1), 1, 0);
  assert.equal(winningNop.ok, false);
  assert.deepEqual(winningNop.problems, ["nop scored 1, must be ≤ 0"]);
});

test("a rollout the machinery failed is not judged, and says so", () => {
  const v = judgeTask("t", r(null, { status: "error", infra: true, reason: "sandbox lost" }), r(0), 1, 0);
  assert.equal(v.ok, false);
  assert.deepEqual(v.problems, ["oracle not judged: infrastructure failure after every retry (sandbox lost)"]);
});

test("mean reward counts a missing reward as 0", () => {
  assert.equal(meanReward([r(1), r(null)]), 0.5);
  assert.equal(meanReward([]), null);
});
