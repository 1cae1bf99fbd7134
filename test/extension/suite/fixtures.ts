import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RunRecord, RunSummary } from "../../../src/core/schema/run";
import { TrajectoryEvent } from "../../../src/core/schema/trajectory";
import { workspaceDir } from "./helpers";

/** A schema-valid trajectory of one rollout with the given reward (each event parsed by the real schema). */
export function trajectoryLines(runId: string, rolloutId: string, task: string, reward: number): string {
  const t = Date.parse("2024-06-01T00:00:00Z");
  const events = [
    {
      type: "start",
      seq: 0,
      t,
      run_id: runId,
      rollout_id: rolloutId,
      env: { name: "fixture", hash: "0", domain: "code" },
      task: { id: task, prompt: "Fix it." },
      policy: { kind: "oracle" },
      sample: 0,
      sandbox: { backend: "process" },
    },
    { type: "message", seq: 1, t: t + 1, role: "assistant", content: "done", turn: 0 },
    {
      type: "reward",
      seq: 2,
      t: t + 2,
      total: reward,
      components: [
        { name: "tests", type: "tests", weight: 1, score: reward, passed: reward >= 1, reason: `${Math.round(reward * 4)}/4 tests passed` },
      ],
    },
    {
      type: "end",
      seq: 3,
      t: t + 3,
      status: "completed",
      reward,
      turns: 1,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      timings: { total_ms: 3, policy_ms: 1, sandbox_ms: 1, verify_ms: 1 },
    },
  ].map((e) => TrajectoryEvent.parse(e));
  return `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

/**
 * A rollout whose one tool call changed solution.py (`return 1` → `return 2`) and added
 * notes.md: the file diff the viewer's Files tab shows.
 */
export function trajectoryWithDiff(runId: string, rolloutId: string): string {
  const t = Date.parse("2024-06-01T00:00:00Z");
  const lines = trajectoryLines(runId, rolloutId, "diff", 1).trimEnd().split("\n");
  const edit = [
    { type: "tool_call", t: t + 1, id: "c1", name: "write_file", arguments: { path: "solution.py" }, turn: 0 },
    {
      type: "observation",
      t: t + 1,
      tool_call_id: "c1",
      name: "write_file",
      output: "wrote solution.py",
      duration_ms: 1,
      turn: 0,
      artifacts: {
        diff: [
          {
            path: "solution.py",
            status: "modified",
            before: "def answer():\n    return 1\n\n\nprint(answer())\n",
            after: "def answer():\n    return 2\n\n\nprint(answer())\n",
          },
          { path: "notes.md", status: "added", before: null, after: "# Notes\nchanged the answer\n" },
        ],
      },
    },
  ].map((e) => JSON.stringify(e));
  // Each event at its position in the file, parsed by the real schema.
  const events = [lines[0], ...edit, ...lines.slice(1)].map((l, seq) => TrajectoryEvent.parse({ ...JSON.parse(l ?? "{}"), seq }));
  return `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

/** Writes runs/<id>/{run.json,summary.json,rollouts/*.jsonl} in the workspace; returns the run folder. */
export function writeRunFixture(created: string, id: string, mean: number): string {
  const dir = path.join(workspaceDir(), "runs", id);
  mkdirSync(path.join(dir, "rollouts"), { recursive: true });
  const record = RunRecord.parse({
    id,
    created,
    ended: created,
    status: "completed",
    env: { name: "fixture", hash: "0", domain: "code", path: "environments/fixture" },
    config: { policy: { kind: "oracle" } },
  });
  const summary = RunSummary.parse({
    run_id: id,
    rollouts: 2,
    mean_reward: mean,
    pass_at_k: { "1": 0.5 },
    statuses: { completed: 2 },
    per_task: [],
  });
  writeFileSync(path.join(dir, "run.json"), JSON.stringify(record, null, 2));
  writeFileSync(path.join(dir, "summary.json"), JSON.stringify(summary, null, 2));
  writeFileSync(path.join(dir, "rollouts", "a-0.jsonl"), trajectoryLines(id, "a-0", "a", 1));
  writeFileSync(path.join(dir, "rollouts", "b-0.jsonl"), trajectoryLines(id, "b-0", "b", Math.max(0, 2 * mean - 1)));
  return dir;
}
