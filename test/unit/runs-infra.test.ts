import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { exportChatJsonl } from "../../src/core/runs/export-chat";
import { readOutcomes, summarizeRunDir } from "../../src/core/runs/run-dir";
import { summarize } from "../../src/core/runs/summarize";
import { startEvent, writeRunFolder } from "../support/run-folder";

test("summary: infrastructure failures are counted apart, never as a zero in the mean or pass@k", () => {
  const s = summarize("r", [
    { task: "a", sample: 0, status: "completed", reward: 1 },
    { task: "a", sample: 1, status: "error", reward: null, infra: true },
    { task: "b", sample: 0, status: "error", reward: null },
    { task: "b", sample: 1, status: "completed", reward: 1 },
  ]);
  assert.equal(s.infra_errors, 1);
  assert.deepEqual(s.statuses, { completed: 2, infra_error: 1, error: 1 });
  // The agent's own error still scores 0; the lost sandbox's does not count at all.
  assert.equal(s.mean_reward, 2 / 3);
  assert.deepEqual(
    s.per_task.map((t) => [t.task, t.n, t.passed]),
    [
      ["a", 1, 1],
      ["b", 2, 1],
    ],
  );
  assert.equal(s.pass_at_k["1"], (1 + 0.5) / 2);
  assert.equal(summarize("r", [{ task: "a", sample: 0, status: "completed", reward: 1 }]).infra_errors, undefined);
});

/** A run folder with one rollout the sandbox failed and one the agent finished. */
function runFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-infra-run-"));
  writeRunFolder(dir);
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  const timings = { total_ms: 1, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 };
  const start = (task: string) => ({
    ...startEvent({ rollout_id: `${task}-0`, task: { id: task, prompt: `prompt of ${task}` }, sandbox: { backend: "docker" } }),
    seq: 0,
    t: 1,
  });
  const lines = (evs: object[]) => `${evs.map((e) => JSON.stringify(e)).join("\n")}\n`;
  writeFileSync(
    path.join(dir, "rollouts", "a-0.jsonl"),
    lines([
      start("a"),
      { type: "message", seq: 1, t: 1, role: "user", content: "prompt of a" },
      {
        type: "error",
        seq: 2,
        t: 1,
        where: "sandbox",
        message: "the sandbox was lost mid-rollout: the sandbox container is gone",
        infra: true,
      },
      { type: "end", seq: 3, t: 1, status: "error", reason: "lost", reward: null, turns: 1, usage, timings },
    ]),
  );
  writeFileSync(
    path.join(dir, "rollouts", "b-0.jsonl"),
    lines([
      start("b"),
      { type: "message", seq: 1, t: 1, role: "user", content: "prompt of b" },
      { type: "message", seq: 2, t: 1, role: "assistant", content: "answer of b" },
      { type: "error", seq: 3, t: 1, where: "engine", message: "a bug", infra: false },
      { type: "end", seq: 4, t: 1, status: "error", reason: "a bug", reward: null, turns: 1, usage, timings },
    ]),
  );
  return dir;
}

test("a run folder read back: the infra failure is known from its trajectory, summarised apart and left out of the chat export", () => {
  const dir = runFolder();
  assert.deepEqual(
    readOutcomes(dir).map((o) => [o.task, o.status, o.infra ?? false]),
    [
      ["a", "error", true],
      ["b", "error", false],
    ],
  );
  const s = summarizeRunDir(dir);
  assert.equal(s.infra_errors, 1);
  assert.equal(s.mean_reward, 0);
  // A chat record holds only what OpenAI's fine-tuning schema allows: the task is known by its prompt.
  const exported = [...exportChatJsonl(dir)].map(
    (l) => (JSON.parse(l) as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === "user")?.content,
  );
  assert.deepEqual(exported, ["prompt of b"]);
});
