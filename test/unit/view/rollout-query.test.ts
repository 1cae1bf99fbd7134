import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesRollout, parseRolloutQuery, type QueriedRollout } from "../../../src/core/view/model/rollout-query";

const rollouts: QueriedRollout[] = [
  { id: "task-0042-s7", task: "task-0042", reward: 0.85 },
  { id: "task-0042-s8", task: "task-0042", reward: 0.2 },
  { id: "task-0420-s1", task: "task-0420", reward: 1 },
  { id: "parse-csv-s1", task: "parse-csv", reward: null },
];
const ids = (text: string) => rollouts.filter((r) => matchesRollout(parseRolloutQuery(text), r)).map((r) => r.id);

test("words: each must appear in the id, the task or the shown reward, in any case", () => {
  assert.deepEqual(ids("TASK-0042"), ["task-0042-s7", "task-0042-s8"]);
  assert.deepEqual(ids("0042 s8"), ["task-0042-s8"]);
  assert.deepEqual(ids("csv"), ["parse-csv-s1"]);
  assert.deepEqual(ids("0.85"), ["task-0042-s7"]);
  assert.deepEqual(ids("nothing-like-it"), []);
  assert.deepEqual(
    ids("   "),
    rollouts.map((r) => r.id),
  );
});

test("reward bounds: reward>x, >=x, <x, <=x, =x; a rollout with no reward never passes one", () => {
  assert.deepEqual(ids("reward>0.5"), ["task-0042-s7", "task-0420-s1"]);
  assert.deepEqual(ids(">=1"), ["task-0420-s1"]);
  assert.deepEqual(ids("r<0.5"), ["task-0042-s8"]);
  assert.deepEqual(ids("<=0.85 task-0042"), ["task-0042-s7", "task-0042-s8"]);
  assert.deepEqual(ids("=0.2"), ["task-0042-s8"]);
  assert.deepEqual(ids("reward>.5 reward<1"), ["task-0042-s7"]);
  assert.deepEqual(parseRolloutQuery("reward>0.5 foo").bounds, [{ op: ">", value: 0.5 }]);
  // Not a bound: a word (which no rollout holds).
  assert.deepEqual(parseRolloutQuery("reward>abc").words, ["reward>abc"]);
});

test("= compares at the shown precision (a float sum is still equal)", () => {
  assert.ok(matchesRollout(parseRolloutQuery("=0.3"), { id: "x", task: null, reward: 0.1 + 0.2 }));
});
