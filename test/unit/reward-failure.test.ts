import assert from "node:assert/strict";
import { test } from "node:test";
import { componentFailure, rolloutFailure, telltaleLine } from "../../src/core/runs/failure";
import { summarize } from "../../src/core/runs/summarize";
import type { RewardComponent } from "../../src/core/schema/trajectory";

const pytestTypo: RewardComponent = {
  name: "tests",
  type: "tests",
  weight: 1,
  score: 0,
  passed: false,
  reason: "no tests ran",
  details: { stdout: "\nno tests ran in 0.01s\n", stderr: "ERROR: file or directory not found: tests_hiden\n\n" },
};

test("a failing component's line names it, its reason and the first telling line of its stderr", () => {
  assert.equal(componentFailure(pytestTypo), "tests: no tests ran — file or directory not found: tests_hiden");
  const traceback = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nNameError: name 'x' is not defined\n";
  assert.equal(telltaleLine(traceback), "NameError: name 'x' is not defined");
  const fields: RewardComponent = {
    name: "report",
    type: "fields",
    weight: 1,
    score: 0.5,
    passed: false,
    reason: "1/2 fields correct",
    details: {
      fields: [
        { field: "a", passed: true, score: 1 },
        { field: "revenue", passed: false, score: 0, reason: "expected 12, got 13" },
      ],
    },
  };
  assert.equal(componentFailure(fields), "report: 1/2 fields correct — revenue: expected 12, got 13");
  assert.equal(componentFailure({ name: "x", type: "exact", weight: 1, score: 1, passed: true, reason: "matches" }), null);
  assert.equal(componentFailure({ name: "j", type: "judge", weight: 1, score: 0, skipped: "no judge endpoint" }), null);
});

test("a rollout's failure: its failing components, or its status and reason when it was not scored", () => {
  const ok: RewardComponent = { name: "exact", type: "exact", weight: 1, score: 1, passed: true };
  assert.equal(
    rolloutFailure({ status: "completed", reward: 0.5, components: [ok, pytestTypo] }),
    "tests: no tests ran — file or directory not found: tests_hiden",
  );
  assert.equal(rolloutFailure({ status: "completed", reward: 1, components: [ok] }), undefined);
  assert.equal(
    rolloutFailure({ status: "error", reason: "policy: 500 from server\nmore", reward: null }),
    "error: policy: 500 from server",
  );
  assert.match(
    rolloutFailure({ status: "truncated", reason: "max_turns (3) reached without submit", reward: 0, components: [pytestTypo] }) ?? "",
    /^truncated \(max_turns \(3\) reached without submit\); tests: no tests ran/,
  );
});

test("summary: per-component and per-field means and a table of failure reasons with counts", () => {
  const field = (name: string, passed: boolean) => ({
    field: name,
    passed,
    score: passed ? 1 : 0,
    ...(passed ? {} : { reason: "expected 1, got 2" }),
  });
  const report = (a: boolean, b: boolean): RewardComponent => ({
    name: "report",
    type: "fields",
    weight: 1,
    score: (Number(a) + Number(b)) / 2,
    passed: a && b,
    reason: `${Number(a) + Number(b)}/2 fields correct`,
    details: { fields: [field("a", a), field("b", b)] },
  });
  const s = summarize("r", [
    { task: "t1", sample: 0, status: "completed", reward: 1, components: [report(true, true)] },
    { task: "t2", sample: 0, status: "completed", reward: 0.5, components: [report(true, false)] },
    { task: "t3", sample: 0, status: "completed", reward: 0.5, components: [report(true, false)] },
    { task: "t4", sample: 0, status: "error", reward: null, reason: "policy: connection refused" },
    { task: "t5", sample: 0, status: "cancelled", reward: null },
  ]);
  assert.deepEqual(s.components, [{ name: "report", type: "fields", n: 3, mean: 2 / 3, passed: 1 }]);
  assert.deepEqual(
    s.fields?.map((f) => [f.field, f.n, f.mean, f.passed]),
    [
      ["a", 3, 1, 3],
      ["b", 3, 1 / 3, 1],
    ],
  );
  assert.deepEqual(s.failures, [
    { reason: "report: 1/2 fields correct", count: 2, tasks: ["t2", "t3"] },
    { reason: "error: policy: connection refused", count: 1, tasks: ["t4"] },
  ]);
});
