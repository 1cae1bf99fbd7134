import assert from "node:assert/strict";
import { test } from "node:test";
import type { RewardEvent } from "../../../src/core/schema/trajectory";
import { alignRows, citedRanges, documentsView, mergeDiffs, sceneChecks } from "../../../src/core/view/model/artifacts";
import { passAtK } from "../../../src/core/runs/pass-at-k";
import { histogram, perTask, unionLength, utilisationSeries } from "../../../src/core/view/model/dashboard";
import { RowGrouper } from "../../../src/core/view/model/rows";
import { summariseRow } from "../../../src/core/view/model/summarise";
import type { RolloutRow } from "../../../src/core/view/protocol/dashboard";

test("rows: prompt, one row per assistant turn with its calls and observations, then reward and end", () => {
  const g = new RowGrouper();
  const lines: Array<[string, string | null]> = [
    ["start", null],
    ["message", "system"],
    ["message", "user"],
    ["message", "assistant"],
    ["tool_call", null],
    ["observation", null],
    ["message", "assistant"],
    ["tool_call", null],
    ["observation", null],
    ["message", "user"],
    ["reward", null],
    ["end", null],
  ];
  for (const [i, [type, role]] of lines.entries()) g.add(i, type, role);
  assert.deepEqual(g.kinds, ["prompt", "turn", "turn", "reward", "end"]);
  assert.deepEqual(g.firstLine, [0, 3, 6, 10, 11]);
  assert.deepEqual(g.lines(2, lines.length), [6, 10]);
  assert.throws(() => g.lines(9, lines.length), /no row 9/);
});

test("row summary: worst observation status wins, a non-zero exit counts as failure, tokens add up", () => {
  const s = summariseRow(1, "turn", [
    {
      line: 4,
      event: {
        type: "message",
        seq: 3,
        t: 10,
        role: "assistant",
        content: "Run   the\ntests",
        usage: { prompt_tokens: 100, completion_tokens: 5 },
        latency_ms: 300,
        turn: 0,
      },
    },
    { line: 5, event: { type: "tool_call", seq: 4, t: 11, id: "a", name: "bash", arguments: {} } },
    {
      line: 6,
      event: {
        type: "observation",
        seq: 5,
        t: 12,
        tool_call_id: "a",
        name: "bash",
        output: "x",
        exit_code: 2,
        status: "ok",
        duration_ms: 40,
        artifacts: { diff: [{ path: "a", status: "added", before: null, after: "x" }] },
      },
    },
    { line: 7, problem: "not JSON" },
  ]);
  assert.equal(s.title, "Turn 0");
  assert.equal(s.status, "exit 2");
  assert.equal(s.tokens, 105);
  assert.equal(s.latency_ms, 300);
  assert.equal(s.duration_ms, 40);
  assert.deepEqual(s.tools, ["bash"]);
  assert.equal(s.has.diff, true);
  assert.equal(s.preview, "1 unreadable line · Run the tests");
});

test("mergeDiffs keeps the first before and the last after; add-then-delete drops out", () => {
  const merged = mergeDiffs([
    { path: "b.py", status: "modified", before: "1", after: "2" },
    { path: "a.py", status: "added", before: null, after: "x" },
    { path: "b.py", status: "modified", before: "2", after: "3" },
    { path: "tmp", status: "added", before: null, after: "t" },
    { path: "tmp", status: "deleted", before: "t", after: null },
    { path: "a.py", status: "modified", before: "x", after: "y" },
  ]);
  assert.deepEqual(merged, [
    { path: "a.py", status: "added", before: null, after: "y", binary: undefined },
    { path: "b.py", status: "modified", before: "1", after: "3", binary: undefined },
  ]);
});

const reward = (details: unknown): RewardEvent => ({
  type: "reward",
  seq: 9,
  t: 0,
  total: 0.5,
  components: [{ name: "scene", type: "scene", weight: 1, score: 0.5, details }],
});

test("scene checks: the scene domain's {label, objects, passed} shape; malformed entries skipped", () => {
  const checks = sceneChecks(
    reward({
      checks: [
        { check: "on_top_of", label: "lamp on table", passed: false, reason: "floats", objects: ["lamp", "table"] },
        { check: "exists", passed: true, target: "leg" },
        { label: "no passed flag" },
        "junk",
      ],
    }),
  );
  assert.deepEqual(checks, [
    { name: "lamp on table", targets: ["lamp", "table"], passed: false, reason: "floats" },
    { name: "exists", targets: ["leg"], passed: true },
  ]);
  assert.deepEqual(sceneChecks(null), []);
});

test("documents: pages from read output (header stripped), cited spans from the report, fields with submitted values", () => {
  const text = "Revenue was $4,210 million. HQ is Springfield.";
  const v = documentsView(
    [
      {
        row: 1,
        events: [
          { type: "tool_call", seq: 1, t: 0, id: "r", name: "read", arguments: { document: "a.pdf", page: 3 } },
          {
            type: "observation",
            seq: 2,
            t: 0,
            tool_call_id: "r",
            name: "read",
            output: `a.pdf p.3 of 9 (chars 0-${text.length} of ${text.length})\n${text}`,
            status: "ok",
            duration_ms: 1,
            artifacts: { citations: [{ document: "a.pdf", page: 3, start: 0, end: text.length }] },
          },
        ],
      },
      {
        row: 2,
        events: [
          { type: "tool_call", seq: 3, t: 0, id: "s", name: "submit_report", arguments: { revenue: "$4,210 million" } },
          {
            type: "observation",
            seq: 4,
            t: 0,
            tool_call_id: "s",
            name: "submit_report",
            output: "ok",
            status: "ok",
            duration_ms: 1,
            artifacts: {
              citations: [
                { document: "a.pdf", page: 3, start: 12, end: 26, text: "$4,210 million" },
                { document: "b.pdf", page: 3, start: 0, end: 3 },
              ],
            },
          },
        ],
      },
    ],
    {
      type: "reward",
      seq: 5,
      t: 0,
      total: 1,
      components: [
        {
          name: "f",
          type: "fields",
          weight: 1,
          score: 1,
          details: { fields: [{ field: "revenue", passed: true, score: 1, reason: "match" }] },
        },
      ],
    },
  );
  assert.equal(v.pages.length, 1);
  assert.equal(v.pages[0]?.text, text);
  assert.equal(v.pages[0]?.page, 3);
  assert.equal(v.citations.length, 2, "read spans are not citations");
  assert.deepEqual(citedRanges(v.pages[0]!, v.citations), [[12, 26]]);
  assert.deepEqual(v.fields, [
    { field: "revenue", component: "f", comparator: null, got: "$4,210 million", passed: true, score: 1, reason: "match" },
  ]);
});

test("citedRanges: offsets relative to a mid-page read, found by text when offsets disagree, merged", () => {
  const page = { row: 0, tool: "read", document: "d", page: 1, text: "abcdefghij", offset: 100 };
  assert.deepEqual(
    citedRanges(page, [
      { document: "d", page: 1, start: 102, end: 105 },
      { document: "d", page: 1, start: 104, end: 107 },
      { document: "d", page: 1, start: 0, end: 2, text: "ij" },
      { document: "d", page: 2, start: 100, end: 101 },
      { document: "d", page: 1, start: 0, end: 5, text: "zzz" },
    ]),
    [
      [2, 7],
      [8, 10],
    ],
  );
});

test("alignRows lines up matching turns and leaves gaps for extra ones", () => {
  assert.deepEqual(alignRows(["p", "bash", "write", "submit"], ["p", "bash", "bash", "write", "submit"]), [
    { a: 0, b: 0 },
    { a: 1, b: 1 },
    { a: null, b: 2 },
    { a: 2, b: 3 },
    { a: 3, b: 4 },
  ]);
  assert.deepEqual(alignRows([], ["x"]), [{ a: null, b: 0 }]);
});

test("pass@k is the unbiased estimator", () => {
  assert.equal(passAtK(4, 0, 1), 0);
  assert.equal(passAtK(4, 4, 2), 1);
  assert.ok(Math.abs(passAtK(4, 1, 1) - 0.25) < 1e-12);
  assert.ok(Math.abs(passAtK(4, 1, 2) - 0.5) < 1e-12);
  assert.ok(Math.abs(passAtK(10, 3, 5) - (1 - 21 / 252)) < 1e-12);
  // One pass@k everywhere (runs/pass-at-k): more draws than samples is an error, as the run summary has it, not NaN.
  assert.throws(() => passAtK(2, 1, 4), /needs at least 4 samples/);
});

test("per-task pass@k, histogram bins and utilisation", () => {
  const row = (task: string, reward: number | null, status = "completed"): RolloutRow => ({
    file: "f",
    id: "i",
    task,
    sample: 0,
    status,
    reward,
    turns: 1,
    duration_ms: 1,
    tokens: 1,
    started: 0,
    ended: 1,
    problems: [],
    problemCount: 0,
    meta: [],
  });
  // Infrastructure failures and cancelled rollouts are no samples, as in the run summary.
  const t = perTask([
    row("a", 1),
    row("a", 0),
    row("b", 0.5),
    row("a", null),
    row("a", null, "infra_error"),
    row("b", null, "cancelled"),
    row("c", null, "infra_error"),
  ]);
  assert.deepEqual(
    t.map((x) => [x.task, x.n, x.passed, x.mean_reward]),
    [
      ["a", 3, 1, 0.5],
      ["b", 1, 0, 0.5],
    ],
  );
  assert.deepEqual(Object.keys(t[0]!.pass_at_k), ["1", "2"]);
  assert.deepEqual(
    histogram([0, 0.05, 0.5, 1, 1], 4, 0, 1).map((b) => b.count),
    [2, 0, 1, 2],
  );
  assert.equal(
    unionLength([
      { start: 0, end: 10 },
      { start: 5, end: 15 },
      { start: 20, end: 30 },
    ]),
    25,
  );
  const u = utilisationSeries(
    [{ start: 0, end: 50 }],
    [
      { start: 0, end: 100 },
      { start: 0, end: 100 },
    ],
    2,
  );
  assert.deepEqual(
    u.points.map((p) => [p.policy_in_flight, p.rollouts_running]),
    [
      [1, 2],
      [0, 2],
    ],
  );
  assert.equal(u.policyBusy, 0.5);
});

test("alignMany: up to four rollouts aligned on the first, extra turns side by side before the next match", async () => {
  const { alignMany } = await import("../../../src/core/view/model/artifacts");
  assert.deepEqual(alignMany([["p", "a", "b", "end"]]), [[0], [1], [2], [3]]);
  // Two rollouts: the same lines as alignRows gives.
  assert.deepEqual(
    alignMany([
      ["p", "a", "b", "end"],
      ["p", "x", "a", "end"],
    ]),
    [
      [0, 0],
      [null, 1],
      [1, 2],
      [2, null],
      [3, 3],
    ],
  );
  const lines = alignMany([
    ["p", "a", "b", "end"],
    ["p", "x", "a", "end"],
    ["p", "y", "z", "a", "b", "end"],
    ["p", "end"],
  ]);
  assert.deepEqual(lines, [
    [0, 0, 0, 0],
    [null, 1, 1, null],
    [null, null, 2, null],
    [1, 2, 3, null],
    [2, null, 4, null],
    [3, 3, 5, 1],
  ]);
  // Every row of every rollout appears exactly once, in order.
  for (let k = 0; k < 4; k++) {
    const rows = lines.map((l) => l[k]).filter((x): x is number => x !== null && x !== undefined);
    assert.deepEqual(
      rows,
      [...rows].sort((a, b) => a - b),
    );
    assert.equal(new Set(rows).size, rows.length);
  }
  // 66,668 rows each: linear fallback, no recursion, no spread.
  const big = Array.from({ length: 66_668 }, (_, i) => `turn:${i % 3}`);
  assert.equal(alignMany([big, big, big.slice(1)]).length, 66_668);
});
