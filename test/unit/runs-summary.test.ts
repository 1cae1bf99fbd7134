import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { passAtK } from "../../src/core/runs/pass-at-k";
import { summarize } from "../../src/core/runs/summarize";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { trajectoryToChat } from "../../src/core/runs/export-chat";
import { startEvent } from "../support/run-folder";

/** pass@k by brute force: the share of k-subsets holding at least one correct sample. */
function bruteForce(n: number, c: number, k: number): number {
  const items = Array.from({ length: n }, (_, i) => i < c);
  let hit = 0;
  let all = 0;
  const pick = (start: number, left: number, any: boolean) => {
    if (left === 0) {
      all++;
      if (any) hit++;
      return;
    }
    for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, any || items[i]!);
  };
  pick(0, k, false);
  return hit / all;
}

test("pass@k equals the combinatorial definition", () => {
  for (const [n, c, k] of [
    [5, 2, 1],
    [5, 2, 3],
    [8, 1, 4],
    [6, 0, 2],
    [6, 6, 3],
    [10, 3, 5],
  ] as const) {
    assert.ok(Math.abs(passAtK(n, c, k) - bruteForce(n, c, k)) < 1e-12, `n=${n} c=${c} k=${k}`);
  }
  assert.equal(passAtK(4, 1, 1), 0.25);
  assert.throws(() => passAtK(2, 1, 3), /needs at least 3 samples/);
});

test("summary: errors count as 0, cancelled and interrupted are not scored", () => {
  const s = summarize(
    "r1",
    [
      { task: "a", sample: 0, status: "completed", reward: 1 },
      { task: "a", sample: 1, status: "completed", reward: 0 },
      { task: "b", sample: 0, status: "error", reward: null },
      { task: "b", sample: 1, status: "timeout", reward: 0.5 },
      { task: "b", sample: 2, status: "cancelled", reward: null },
      { task: "c", sample: 0, status: "interrupted", reward: null },
    ],
    { k: 2 },
  );
  assert.equal(s.rollouts, 6);
  assert.equal(s.mean_reward, 1.5 / 4);
  assert.deepEqual(s.statuses, { completed: 2, error: 1, timeout: 1, cancelled: 1, interrupted: 1 });
  const a = s.per_task.find((t) => t.task === "a")!;
  assert.deepEqual([a.n, a.passed, a.mean_reward, a.pass_at_k["1"], a.pass_at_k["2"]], [2, 1, 0.5, 0.5, 1]);
  const c = s.per_task.find((t) => t.task === "c")!;
  assert.deepEqual([c.n, c.mean_reward], [0, null]);
  assert.equal(s.pass_at_k["1"], (0.5 + 0) / 2);
  assert.equal(s.pass_at_k["2"], (1 + 0) / 2);
});

test("a torn last line and a bad line are reported; every whole event is kept", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-traj-"));
  const file = path.join(dir, "t.jsonl");
  const start = { ...startEvent({ rollout_id: "x.s0", task: { id: "x", prompt: "p" }, policy: { kind: "nop" } }), seq: 0, t: 1 };
  const msg = { type: "message", seq: 1, t: 2, role: "user", content: "hi" };
  writeFileSync(
    file,
    `${JSON.stringify(start)}\n{"type":"message","seq":2}\n${JSON.stringify(msg)}\n{"type":"observation","tool_call_id":"c1","na`,
  );
  const r = readTrajectory(file);
  assert.equal(r.events.length, 2);
  assert.equal(r.torn, true);
  assert.equal(r.bad.length, 2);
  assert.equal(r.bad[0]?.line, 2);
  assert.match(r.bad[1]?.message ?? "", /torn last line/);
  assert.equal(trajectoryToChat(r.events), null, "no end event, no chat record");
});

test("summary: a check that did not run is counted apart (not_run), neither in the means nor among the agent's failures", () => {
  const skipped = "skipped: judge: no base URL (set base_url on the verifier or RLENV_JUDGE_BASE_URL)";
  const judged = (task: string) => ({
    task,
    sample: 0,
    status: "completed" as const,
    reward: 0,
    components: [
      { name: "answer", type: "fields", weight: 1, score: 0, passed: false, reason: "0/1 fields correct", skipped: `answer: ${skipped}` },
    ],
  });
  const s = summarize("r1", [
    judged("fb-1"),
    judged("fb-2"),
    {
      task: "fb-3",
      sample: 0,
      status: "completed",
      reward: 1,
      components: [{ name: "answer", type: "fields", weight: 1, score: 1, passed: true }],
    },
  ]);
  assert.equal(s.mean_reward, 1 / 3, "the skipped checks still score 0 in the total");
  assert.deepEqual(s.not_run, [{ reason: `answer: ${skipped}`, count: 2, tasks: ["fb-1", "fb-2"] }]);
  assert.deepEqual(s.failures, [], "a check that did not run is not the agent's failure");
  assert.deepEqual(
    s.components?.map((c) => [c.name, c.n, c.mean]),
    [["answer", 1, 1]],
  );
  assert.equal(
    summarize("r2", [{ task: "a", sample: 0, status: "completed", reward: 1 }]).not_run,
    undefined,
    "absent when every check ran",
  );
});
