import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { readReportRollouts } from "../../../src/core/report/read-rollouts";
import { filterRollouts, rolloutTest } from "../../../src/core/view/model/rollout-filter";
import { filterInSlices, sortedOrder } from "../../../src/core/view/model/rollout-order";
import type { Dashboard, RolloutRow } from "../../../src/core/view/protocol/dashboard";
import { reportRollout } from "../../../src/core/view/server/run-folder";
import { TrajectoryIndex } from "../../../src/core/view/server/trajectory-index";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type LargeRunSpec, largeRolloutFacts, writeLargeRun } from "../../fixtures/large-run";
import { type FixtureRuns, writeBigRollout, writeFixtureRuns } from "../../fixtures/trajectories";

const SPEC: LargeRunSpec = { rollouts: 300, tasks: 15 };
let root: string;
let runs: FixtureRuns;
before(() => {
  root = mkdtempSync(path.join(tmpdir(), "rlenv-large-"));
  writeLargeRun(path.join(root, "run"), SPEC);
  runs = writeFixtureRuns(path.join(root, "fixtures"));
});

const row = (id: string, over: Partial<RolloutRow>): RolloutRow => ({
  file: `rollouts/${id}.jsonl`,
  id,
  task: "t",
  sample: 0,
  status: "completed",
  reward: null,
  turns: null,
  duration_ms: null,
  tokens: null,
  started: null,
  ended: null,
  problems: [],
  problemCount: 0,
  meta: [],
  ...over,
});

test("sort order: numbers as numbers, text in natural order, missing values last in both directions, ties in row order", () => {
  const rows = [
    row("s10", { reward: 0.5 }),
    row("s2", { reward: null }),
    row("s1", { reward: 1 }),
    row("s3", { reward: 0.5 }),
    row("s20", { reward: 0 }),
  ];
  const ids = (o: Int32Array) => Array.from(o, (i) => rows[i]!.id);
  assert.deepEqual(ids(sortedOrder(rows, "id", false)), ["s1", "s2", "s3", "s10", "s20"]);
  assert.deepEqual(ids(sortedOrder(rows, "id", true)), ["s20", "s10", "s3", "s2", "s1"]);
  assert.deepEqual(ids(sortedOrder(rows, "reward", false)), ["s20", "s10", "s3", "s1", "s2"]);
  assert.deepEqual(ids(sortedOrder(rows, "reward", true)), ["s1", "s10", "s3", "s20", "s2"]);
});

test("a filter in slices gives the rows the whole filter gives, in the sort's order, pausing between slices; a newer filter stops it", async () => {
  const rows = Array.from({ length: 5000 }, (_, i) =>
    row(`r${i}`, { reward: (i % 10) / 10, status: i % 7 === 0 ? "timeout" : "completed" }),
  );
  const order = sortedOrder(rows, "reward", true);
  const test = rolloutTest({ status: "timeout", reward: { min: 0.5 } });
  // A clock that moves 1 ms per read: a 2 ms budget ends a slice every few hundred rows.
  let clock = 0;
  let pauses = 0;
  const got = await filterInSlices(order, rows, test, {
    budgetMs: 2,
    now: () => clock++,
    pause: async () => {
      pauses++;
    },
    stale: () => false,
  });
  assert.ok(got);
  const expected = Array.from(order).filter((k) => test(rows[k]!));
  assert.deepEqual(Array.from(got), expected);
  assert.deepEqual(
    Array.from(got, (k) => rows[k]!),
    filterRollouts(
      Array.from(order, (k) => rows[k]!),
      { status: "timeout", reward: { min: 0.5 } },
    ),
  );
  assert.ok(pauses > 3, `the filter gave the page back between slices (${pauses} pauses)`);
  const stopped = await filterInSlices(order, rows, test, { budgetMs: 2, now: () => clock++, pause: async () => {}, stale: () => true });
  assert.equal(stopped, null);
});

test("the dashboard of a generated run lists every rollout with the facts it was written with, and a filter gives the right rows", async () => {
  const svc = new ViewService(path.join(root, "run"), { summaryCache: null });
  const d = (await svc.handle("run", { dir: "." })) as Dashboard;
  const rollouts = (await svc.handle("rollouts", { dir: "." })) as RolloutRow[];
  assert.equal(rollouts.length, SPEC.rollouts);
  assert.equal(d.rolloutCount, SPEC.rollouts);
  const facts = new Map(Array.from({ length: SPEC.rollouts }, (_, k) => largeRolloutFacts(k, SPEC)).map((f) => [f.id, f]));
  for (const r of rollouts) {
    const f = facts.get(r.id);
    assert.ok(f, r.id);
    assert.equal(r.status, f.status, r.id);
    assert.equal(r.reward, f.reward, r.id);
    assert.ok(r.meta.some(([k, v]) => k === "policy.model" && v === f.model));
  }
  const shown = filterRollouts(rollouts, { text: "task-0003", status: "timeout", meta: "policy.model=model-b" })
    .map((r) => r.id)
    .sort();
  const want = [...facts.values()]
    .filter((f) => f.task === "task-0003" && f.status === "timeout" && f.model === "model-b")
    .map((f) => f.id)
    .sort();
  assert.ok(want.length > 0, "the generator wrote some rows the filter should find");
  assert.deepEqual(shown, want);
  assert.equal(d.readiness?.tasks.length ?? d.perTask.length, SPEC.tasks);
});

test("the readiness report's rollouts taken from the indexes are those read back from the files", async () => {
  for (const dir of [path.join(root, "run"), runs.code, runs.xss]) {
    const files = readdirSync(path.join(dir, "rollouts"))
      .sort()
      .map((f) => path.join(dir, "rollouts", f));
    const fromIndex = [];
    for (const f of files) {
      const r = reportRollout(await TrajectoryIndex.open(f));
      if (r) fromIndex.push(r);
    }
    assert.deepEqual(fromIndex, readReportRollouts(dir, files));
  }
});

test("each row's signature kept by the index is the row summary's kind and tools", async () => {
  for (const dir of [runs.code, runs.scene3d, runs.document]) {
    for (const f of readdirSync(path.join(dir, "rollouts"))) {
      const idx = await TrajectoryIndex.open(path.join(dir, "rollouts", f));
      const rows = await idx.rows(0, idx.rowCount);
      assert.deepEqual(
        [...idx.rowSignatures()],
        rows.map((r) => `${r.kind}:${r.tools.join(",")}`),
        f,
      );
    }
  }
});

test("a large rollout compared with itself: aligned lines from its first chunk on, then every row paired with itself", async () => {
  const dir = path.join(root, "big");
  const file = path.join(dir, "rollouts", "big.jsonl");
  await writeBigRollout(file, 3000, 12 * 1024 * 1024);
  const svc = new ViewService(dir);
  const files = ["rollouts/big.jsonl", "rollouts/big.jsonl"];
  const first = (await svc.handle("align", { files })) as { lines: Array<Array<number | null>>; partial: boolean };
  assert.ok(first.lines.length > 0, "lines before the file is read whole");
  for (const [i, l] of first.lines.entries()) assert.deepEqual(l, [i, i]);
  await svc.fullIndex(svc.resolve(files[0]!));
  const whole = (await svc.handle("align", { files })) as { lines: Array<Array<number | null>>; partial: boolean };
  assert.equal(whole.partial, false);
  const idx = await svc.fullIndex(svc.resolve(files[0]!));
  assert.equal(whole.lines.length, idx.rowCount);
  assert.ok(whole.lines.every((l, i) => l[0] === i && l[1] === i));
});
