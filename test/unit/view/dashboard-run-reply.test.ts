import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { Dashboard } from "../../../src/core/view/protocol/dashboard";
import { ViewService } from "../../../src/core/view/server/view-service";
import { parseDashboard } from "../../../webviews/src/apps/dashboard/run-reply";
import { parseInSlices } from "../../../webviews/src/shared/parse-slices";
import { writeLargeRun } from "../../fixtures/large-run";

/**
 * The dashboard page parses `run`'s reply in slices (its per-task lists apart from the rest): the
 * result must be what the Dashboard schema gives in one parse, and a bad entry anywhere must fail
 * as loudly, naming its path in the reply.
 */
let reply: Record<string, unknown>;
before(async () => {
  const run = writeLargeRun(path.join(mkdtempSync(path.join(tmpdir(), "rlenv-run-reply-")), "run"), { rollouts: 200, tasks: 40 });
  // As the page receives it: through JSON.
  reply = JSON.parse(JSON.stringify(await new ViewService(run).handle("run", { dir: "." })));
});

type Tree = Record<string | number, unknown>;
/** The reply with the value at `at` replaced by `value` (removed when undefined). */
const edit = (at: Array<string | number>, value: unknown) => {
  const r = structuredClone(reply);
  let node = r as Tree;
  for (const k of at.slice(0, -1)) node = node[k] as Tree;
  const last = at.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return r;
};

test("the reply parsed in slices equals one parse with the Dashboard schema", async () => {
  const whole = Dashboard.parse(reply);
  assert.equal(whole.perTask.length, 40);
  assert.equal(whole.readiness?.tasks.length, 40);
  assert.deepEqual(await parseDashboard(reply), whole);
  // A run with no readiness report yet (no run.json): null, as the schema's default.
  const bare = edit(["readiness"], undefined);
  assert.deepEqual(await parseDashboard(bare), Dashboard.parse(bare));
});

test("a bad entry in a per-task list or elsewhere fails with its path", async () => {
  const cases: Array<[Array<string | number>, unknown, RegExp]> = [
    [["perTask", 7, "pass_at_k", "3"], "x", /run: unexpected reply: perTask\.7\.pass_at_k\.3: .*expected number/],
    [["readiness", "tasks", 3, "band"], "sometimes", /run: unexpected reply: readiness\.tasks\.3\.band: /],
    [["perTask"], {}, /run: unexpected reply: perTask: .*expected array/],
    [["rolloutCount"], 1.5, /run: unexpected reply: rolloutCount: /],
  ];
  for (const [at, value, want] of cases) await assert.rejects(parseDashboard(edit(at, value)), want);
});

test("parseInSlices keeps the order of a list longer than one slice", async () => {
  const items = Array.from({ length: 20_000 }, (_, i) => ({ task: `t${i}`, n: 1, passed: 0, mean_reward: null, pass_at_k: { 1: 0 } }));
  const { TaskPass } = await import("../../../src/core/view/protocol/dashboard");
  const parsed = await parseInSlices(TaskPass, items, "x", []);
  assert.deepEqual(
    parsed.map((t) => t.task),
    items.map((t) => t.task),
  );
});
