import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { describeRun, formatBreakdown, listRollouts, listRunFolders, readRolloutSummary } from "../../src/core/runs/run-listing";
import { startEvent, writeRunFolder } from "../support/run-folder";

const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-runs-"));
after(() => rmSync(root, { recursive: true, force: true }));

function run(id: string, created: string, mean: number | null, extra: Record<string, string> = {}): string {
  const dir = path.join(root, id);
  writeRunFolder(dir, { id, created, env: { name: "e", hash: "h", domain: "code", path: "e" }, config: { policy: { kind: "nop" } } });
  writeFileSync(
    path.join(dir, "summary.json"),
    JSON.stringify({
      run_id: id,
      rollouts: 3,
      mean_reward: mean,
      pass_at_k: { "1": 0.5, "2": 0.75 },
      statuses: { completed: 3 },
      per_task: [],
    }),
  );
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  return dir;
}

test("runs are listed newest first and described with mean reward and pass@k", () => {
  run("a", "2024-01-01T00:00:00Z", 0.5);
  run("b", "2025-01-01T00:00:00Z", 0.25);
  mkdirSync(path.join(root, "not-a-run"));
  const list = listRunFolders(root);
  assert.deepEqual(
    list.map((r) => r.id),
    ["b", "a"],
  );
  assert.equal(describeRun(list[0]!), "mean 0.25 · pass@1 0.50 · pass@2 0.75 · 3 rollouts");
});

test("a broken summary is reported, not thrown", () => {
  run("c", "2023-01-01T00:00:00Z", 0.5, { "summary.json": "{ not json" });
  const c = listRunFolders(root).find((r) => r.id === "c");
  assert.ok(c);
  assert.ok(c.problem?.startsWith("summary.json:"), "the problem names the file");
  assert.equal(describeRun(c), "completed");
});

test("a rollout's reward and components are read from its trajectory, a torn last line tolerated", () => {
  const dir = path.join(root, "a");
  const t = 1;
  const lines = [
    {
      ...startEvent({ run_id: "a", rollout_id: "r", env: { name: "e", hash: "h", domain: "code" }, task: { id: "task-1", prompt: "p" } }),
      seq: 0,
      t,
    },
    {
      type: "reward",
      seq: 1,
      t,
      total: 0.5,
      components: [{ name: "tests", type: "tests", weight: 1, score: 0.5, passed: false, reason: "2/4 passed" }],
    },
  ];
  writeFileSync(path.join(dir, "rollouts", "r.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"type":"end","se`);
  assert.deepEqual(listRollouts(dir), [path.join(dir, "rollouts", "r.jsonl")]);
  const r = readRolloutSummary(path.join(dir, "rollouts", "r.jsonl"));
  assert.equal(r.task, "task-1");
  assert.equal(r.reward, 0.5);
  assert.deepEqual(formatBreakdown(r.components), ["tests (tests, weight 1): 0.50 ✗ — 2/4 passed"]);
});
