import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { utilisationSeries } from "../../../src/core/view/model/dashboard";
import { TrajectoryIndex } from "../../../src/core/view/server/trajectory-index";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type FixtureRuns, writeFixtureRuns } from "../../fixtures/trajectories";

/** Files as other writers make them: spaced JSON, no final newline, a torn line, a BOM, many bad lines, huge runs. */
let dir: string;
let runs: FixtureRuns;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "rlenv-unusual-"));
  runs = writeFixtureRuns(path.join(dir, "runs"));
});

/** JSON as Python's json.dumps writes it by default: a space after every comma and colon. */
function pythonDumps(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonDumps).join(", ")}]`;
  if (v && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pythonDumps(x)}`)
      .join(", ")}}`;
  return JSON.stringify(v);
}
const lines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n");

test("JSON written with spaces after colons indexes like compact JSON (files changed, scene rows, citations)", async () => {
  for (const [run, name] of [
    [runs.code, "stats-mean-s0.jsonl"],
    [runs.scene3d, "table-lamp-s0.jsonl"],
    [runs.document, "acme-10k-s0.jsonl"],
  ] as const) {
    const compact = path.join(run, "rollouts", name);
    const spaced = path.join(dir, `spaced-${name}`);
    writeFileSync(
      spaced,
      `${lines(compact)
        .map((l) => pythonDumps(JSON.parse(l)))
        .join("\n")}\n`,
    );
    const [a, b] = [await TrajectoryIndex.open(compact), await TrajectoryIndex.open(spaced)];
    assert.deepEqual(await b.rows(0, b.rowCount), await a.rows(0, a.rowCount), name);
    assert.deepEqual(b.meta("f").sceneRows, a.meta("f").sceneRows, name);
    for (const kind of ["diff", "scene", "citations", "images"] as const)
      assert.deepEqual(b.rowsWith(kind), a.rowsWith(kind), `${name} ${kind}`);
    assert.ok(a.rowsWith("diff").length + a.rowsWith("scene").length + a.rowsWith("citations").length > 0, name);
  }
  const svc = new ViewService(dir);
  const diff = (await svc.handle("diff", { file: "spaced-stats-mean-s0.jsonl", row: null })) as Array<{ path: string }>;
  assert.deepEqual(
    diff.map((d) => d.path),
    ["stats.py", "test_empty.py"],
  );
});

test("a last line without its newline is read: the rollout is complete, not live", async () => {
  const src = readFileSync(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"), "utf8");
  const file = path.join(dir, "no-newline.jsonl");
  writeFileSync(file, src.trimEnd());
  const idx = await TrajectoryIndex.open(file);
  const m = idx.meta("f");
  assert.equal(m.complete, true);
  assert.equal(m.lines, lines(file).length);
  assert.equal(m.torn, null);
  assert.equal((await idx.rows(m.rows - 1, m.rows))[0]?.kind, "end");
  // A writer that then adds its newline and more lines: no blank line appears, nothing is read twice.
  appendFileSync(file, `\n${lines(file)[1]}\n`);
  await idx.refresh();
  assert.equal(idx.meta("f").lines, m.lines + 1);
  assert.equal(idx.meta("f").problemCount, 0);
});

test("a torn last line is noted (not a problem yet) and read once its rest arrives", async () => {
  const src = lines(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"));
  const file = path.join(dir, "torn.jsonl");
  const last = src[src.length - 1]!;
  writeFileSync(file, `${src.slice(0, -1).join("\n")}\n${last.slice(0, 30)}`);
  const idx = await TrajectoryIndex.open(file);
  assert.deepEqual(idx.meta("f").torn, { line: src.length, bytes: 30 });
  assert.equal(idx.meta("f").complete, false);
  assert.equal(idx.meta("f").problemCount, 0);
  appendFileSync(file, `${last.slice(30)}\n`);
  await idx.refresh();
  assert.equal(idx.meta("f").torn, null);
  assert.equal(idx.meta("f").complete, true);
});

test("a leading byte order mark does not lose the start event", async () => {
  const file = path.join(dir, "bom.jsonl");
  writeFileSync(file, `\ufeff${readFileSync(path.join(runs.document, "rollouts", "acme-10k-s0.jsonl"), "utf8")}`);
  const idx = await TrajectoryIndex.open(file);
  const m = idx.meta("f");
  assert.equal(m.start?.type, "start");
  assert.equal(m.domain, "document");
  assert.equal(m.problemCount, 0);
  const [first] = await idx.entries(0, 1);
  assert.ok(first?.entries.every((e) => "event" in e));
});

test("unreadable lines are all counted, JSON or schema, wherever they are", async () => {
  const src = lines(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"));
  const bad = Array.from({ length: 250 }, (_, i) => (i % 2 ? "{nope" : pythonDumps({ type: "observation", seq: i, t: 1, name: "x" })));
  const file = path.join(dir, "many-bad.jsonl");
  writeFileSync(file, `${[src[0], ...bad, ...src.slice(1)].join("\n")}\n`);
  const m = (await TrajectoryIndex.open(file)).meta("f");
  assert.equal(m.problemCount, 250);
  assert.equal(m.problems.length, 200);
  assert.equal(m.complete, true);
});

test("dashboard model: 300,000 intervals do not overflow the stack", () => {
  const ivs = Array.from({ length: 300_000 }, (_, i) => ({ start: i, end: i + 2 }));
  const { points, policyBusy } = utilisationSeries(ivs, [{ start: 0, end: 300_001 }]);
  assert.equal(points.length, 60);
  assert.ok(policyBusy !== null && policyBusy > 0.99);
});
