import assert from "node:assert/strict";
import { test } from "node:test";
import { trajectoryToChat } from "../../src/core/runs/export-chat";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { startEvent } from "../support/run-folder";

const at = (seq: number) => ({ seq, t: seq });

test("chat export: a record ends with the assistant's last turn, not the submit tool's reply", () => {
  const events: TrajectoryEvent[] = [
    { ...startEvent({ rollout_id: "x.s0", env: { name: "e", hash: "h", domain: "code" }, task: { id: "x", prompt: "p" } }), ...at(0) },
    { type: "message", ...at(1), role: "user", content: "do it" },
    {
      type: "message",
      ...at(2),
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", name: "bash", arguments: '{"command":"ls"}' }],
    },
    { type: "tool_call", ...at(3), id: "c1", name: "bash", arguments: { command: "ls" } },
    { type: "observation", ...at(4), tool_call_id: "c1", name: "bash", output: "a.py", status: "ok", duration_ms: 1 },
    { type: "message", ...at(5), role: "assistant", content: "done", tool_calls: [{ id: "c2", name: "submit", arguments: "{}" }] },
    { type: "tool_call", ...at(6), id: "c2", name: "submit", arguments: {} },
    {
      type: "observation",
      ...at(7),
      tool_call_id: "c2",
      name: "submit",
      output: "submitted; the hidden tests will now run",
      status: "ok",
      duration_ms: 0,
    },
    { type: "reward", ...at(8), total: 1, components: [] },
    {
      type: "end",
      ...at(9),
      status: "completed",
      reward: 1,
      turns: 2,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      timings: { total_ms: 1, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 },
    },
  ];
  const rec = trajectoryToChat(events);
  assert.deepEqual(
    rec?.messages.map((m) => m.role),
    ["user", "assistant", "tool", "assistant"],
  );
  const last = rec?.messages.at(-1);
  assert.equal(last?.role === "assistant" && last.tool_calls?.[0]?.function.name, "submit");
});
