import assert from "node:assert/strict";
import { test } from "node:test";
import { judgeValidation, meanReward } from "../../../src/extension/rollouts/judge";

const o = (reward: number | null, status = "completed") => ({ task: "t", sample: 0, status, reward });

test("valid when the oracle reaches min and nop stays at or under max", () => {
  const v = judgeValidation("t", o(1), o(0), 1, 0);
  assert.equal(v.passed, true);
  assert.match(v.reason, /oracle 1\.00 ≥ 1, nop 0\.00 ≤ 0/);
});

test("a weak oracle, a winning nop, or a missing rollout each fail with the reason", () => {
  assert.match(judgeValidation("t", o(0.5), o(0), 1, 0).reason, /oracle scored 0\.50 .* below the required 1/);
  assert.match(judgeValidation("t", o(1), o(1), 1, 0).reason, /passed without doing anything/);
  assert.match(judgeValidation("t", undefined, o(0), 1, 0).reason, /oracle did not run/);
  assert.match(judgeValidation("t", o(null, "error"), o(0), 1, 0).reason, /no reward \(error\)/);
  assert.equal(judgeValidation("t", o(1), o(null, "timeout"), 1, 0).passed, false);
});

test("mean reward counts a missing reward as 0", () => {
  assert.equal(meanReward([o(1), o(null)]), 0.5);
  assert.equal(meanReward([]), null);
});
