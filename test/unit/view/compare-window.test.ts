import assert from "node:assert/strict";
import { test } from "node:test";
import { ROWS_PER_REQUEST, rowRangesFor } from "../../../src/core/view/model/compare-window";

test("rowRangesFor: one range from the page's first row of a rollout to its last, gaps skipped", () => {
  const page = [
    [0, null],
    [1, 0],
    [null, 1],
    [2, 2],
  ];
  assert.deepEqual(rowRangesFor(page, 0), [{ from: 0, to: 3 }]);
  assert.deepEqual(rowRangesFor(page, 1), [{ from: 0, to: 3 }]);
});

test("rowRangesFor: a rollout with no row on the page asks for nothing", () => {
  assert.deepEqual(
    rowRangesFor(
      [
        [5, null],
        [6, null],
      ],
      1,
    ),
    [],
  );
  assert.deepEqual(rowRangesFor([], 0), []);
});

test("rowRangesFor: rows spread wider than one request are asked for in requests of at most ROWS_PER_REQUEST", () => {
  const page = [[10], [10 + ROWS_PER_REQUEST + 20]];
  assert.deepEqual(rowRangesFor(page, 0), [
    { from: 10, to: 10 + ROWS_PER_REQUEST },
    { from: 10 + ROWS_PER_REQUEST, to: 10 + ROWS_PER_REQUEST + 21 },
  ]);
});
