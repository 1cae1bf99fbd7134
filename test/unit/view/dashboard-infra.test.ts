import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { Dashboard, RolloutRow } from "../../../src/core/view/protocol/dashboard";
import { ViewService } from "../../../src/core/view/server/view-service";

const line = (e: Record<string, unknown>, seq: number) => `${JSON.stringify({ ...e, seq, t: 1 + seq })}\n`;
const start = (id: string) => ({
  type: "start",
  run_id: "r",
  rollout_id: id,
  env: { name: "e", hash: "h", domain: "code" },
  task: { id: "t", prompt: "p" },
  policy: { kind: "oracle" },
  sample: 0,
  sandbox: { backend: "process" },
});
const end = (status: string, reward: number | null) => ({
  type: "end",
  status,
  reward,
  turns: 1,
  usage: { prompt_tokens: 1, completion_tokens: 1 },
  timings: { total_ms: 5, policy_ms: 1, sandbox_ms: 1, verify_ms: 1 },
});

test("dashboard: a rollout the infrastructure failed shows as infra_error and is no sample of its task's pass@k", async () => {
  const run = mkdtempSync(path.join(tmpdir(), "rlenv-dash-infra-"));
  mkdirSync(path.join(run, "rollouts"));
  writeFileSync(path.join(run, "rollouts", "a.jsonl"), [line(start("a"), 0), line(end("completed", 1), 1)].join(""));
  writeFileSync(
    path.join(run, "rollouts", "b.jsonl"),
    [
      line(start("b"), 0),
      line({ type: "error", where: "sandbox", message: "the sandbox container is gone", infra: true }, 1),
      line(end("error", null), 2),
    ].join(""),
  );
  // A task's own error (a crashing tool) stays an error and a failed sample.
  writeFileSync(
    path.join(run, "rollouts", "c.jsonl"),
    [line(start("c"), 0), line({ type: "error", where: "tool", message: "boom", infra: false }, 1), line(end("error", 0), 2)].join(""),
  );
  const svc = new ViewService(run, { summaryCache: null });
  const d = (await svc.handle("run", { dir: "." })) as Dashboard;
  const rollouts = (await svc.handle("rollouts", { dir: "." })) as RolloutRow[];
  assert.deepEqual(
    rollouts.flatMap((r) => r.problems),
    [],
  );
  const status = new Map(rollouts.map((r) => [r.id, r.status]));
  assert.equal(status.get("a"), "completed");
  assert.equal(status.get("b"), "infra_error");
  assert.equal(status.get("c"), "error");
  const t = d.perTask.find((x) => x.task === "t");
  assert.equal(t?.n, 2, "the infrastructure's failure is no sample");
  assert.equal(t?.passed, 1);
});
