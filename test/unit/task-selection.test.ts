// `rlenv run --tasks 'glob' --limit N`: which tasks a run takes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { selectTaskIds } from "../../src/cli/task-ids";

const IDS = ["humaneval-000", "humaneval-001", "humaneval-010", "humaneval-100", "stdio-a", "stdio-b"];

test("globs pick ids in the environment's order, each once; plain ids stay as given", () => {
  assert.deepEqual(selectTaskIds({ tasks: ["humaneval-0*"] }, IDS), ["humaneval-000", "humaneval-001", "humaneval-010"]);
  assert.deepEqual(selectTaskIds({ tasks: ["stdio-?", "humaneval-00[01]", "stdio-a"] }, IDS), [
    "stdio-a",
    "stdio-b",
    "humaneval-000",
    "humaneval-001",
  ]);
  assert.deepEqual(selectTaskIds({ tasks: ["humaneval-[!0]*"] }, IDS), ["humaneval-100"]);
  // A dot in a pattern is a dot, not any character.
  assert.throws(
    () => selectTaskIds({ tasks: ["humaneval.0*"] }, IDS),
    /--tasks humaneval\.0\*: no task id matches it \(tasks look like humaneval-000/,
  );
  assert.deepEqual(
    selectTaskIds({ tasks: ["not-a-task"] }, IDS),
    ["not-a-task"],
    "an unknown plain id is left to the engine, which names it",
  );
  assert.equal(selectTaskIds({}, IDS), undefined, "every task");
});

test("--limit keeps the first N of the selection, else of the environment", () => {
  assert.deepEqual(selectTaskIds({ limit: 2 }, IDS), ["humaneval-000", "humaneval-001"]);
  assert.deepEqual(selectTaskIds({ tasks: ["stdio-*", "humaneval-1*"], limit: 2 }, IDS), ["stdio-a", "stdio-b"]);
  assert.deepEqual(selectTaskIds({ fileTasks: ["stdio-b", "humaneval-010"], limit: 1 }, IDS), ["stdio-b"]);
  assert.deepEqual(selectTaskIds({ limit: 100 }, IDS), IDS);
});
