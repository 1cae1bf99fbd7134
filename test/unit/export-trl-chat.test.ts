// TRL records in the form TRL's docs show tool calling (tool messages named, arguments as
// objects), and chat-jsonl records with no key outside OpenAI's fine-tuning schema.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { exportChatJsonl } from "../../src/core/runs/export-chat";
import { exportTrlRecords } from "../../src/core/runs/export-rl";
import { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { startEvent, writeRunFolder } from "../support/run-folder";

const END = { type: "end", turns: 2, usage: {}, timings: { total_ms: 1, policy_ms: 1, sandbox_ms: 0, verify_ms: 0 } };
const TOOLS = [{ name: "bash", description: "run a command", parameters: { type: "object", properties: { command: { type: "string" } } } }];

function conversation(id: string, status: string, reward: number | null): object[] {
  return [
    startEvent({ rollout_id: id, task: { id, prompt: "p" }, tools: TOOLS }),
    { type: "message", role: "system", content: "be brief" },
    { type: "message", role: "user", content: "list the files" },
    {
      type: "message",
      role: "assistant",
      content: null,
      turn: 0,
      tool_calls: [
        { id: "c1", name: "bash", arguments: '{"command":"ls"}' },
        { id: "c2", name: "bash", arguments: "not json" },
      ],
    },
    { type: "tool_call", id: "c1", name: "bash", arguments: { command: "ls" } },
    { type: "observation", tool_call_id: "c1", name: "bash", output: "a.py", duration_ms: 1 },
    { type: "tool_call", id: "c2", name: "bash", arguments: "not json" },
    { type: "observation", tool_call_id: "c2", name: "bash", output: "bad arguments", duration_ms: 1 },
    { type: "message", role: "assistant", content: "a.py", turn: 1 },
    { ...END, status, reward },
  ];
}

function run(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-export-trl-"));
  writeRunFolder(dir);
  for (const [id, status, reward] of [
    ["done", "completed", 1],
    ["stopped", "cancelled", null],
  ] as const) {
    const lines = conversation(id, status, reward).map((e, seq) => JSON.stringify(TrajectoryEvent.parse({ seq, t: seq, ...e })));
    writeFileSync(path.join(dir, "rollouts", `${id}.jsonl`), `${lines.join("\n")}\n`);
  }
  return dir;
}

test("trl: tool messages carry the tool's name, tool-call arguments are objects (raw text when not JSON)", () => {
  const records = exportTrlRecords(run());
  assert.deepEqual(
    records.map((r) => r.rollout_id),
    ["done"],
  );
  const r = records[0]!;
  assert.deepEqual(r.prompt, [
    { role: "system", content: "be brief" },
    { role: "user", content: "list the files" },
  ]);
  assert.deepEqual(r.completion, [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { type: "function", function: { name: "bash", arguments: { command: "ls" } } },
        { type: "function", function: { name: "bash", arguments: "not json" } },
      ],
    },
    { role: "tool", name: "bash", content: "a.py" },
    { role: "tool", name: "bash", content: "bad arguments" },
    { role: "assistant", content: "a.py" },
  ]);
});

/** The keys OpenAI's chat fine-tuning format allows, at the top and in each message by role. */
const TOP = new Set(["messages", "tools", "parallel_tool_calls"]);
const BY_ROLE: Record<string, Set<string>> = {
  system: new Set(["role", "content", "name"]),
  user: new Set(["role", "content", "name"]),
  assistant: new Set(["role", "content", "name", "tool_calls", "weight", "refusal"]),
  tool: new Set(["role", "content", "tool_call_id"]),
};

test("chat-jsonl: only keys of OpenAI's fine-tuning schema, and a cancelled rollout left out", () => {
  const lines = [...exportChatJsonl(run())];
  assert.equal(lines.length, 1, "the cancelled rollout is not exported");
  const rec = JSON.parse(lines[0]!) as { messages: Array<Record<string, unknown>>; tools: unknown[] };
  assert.deepEqual(
    Object.keys(rec).filter((k) => !TOP.has(k)),
    [],
  );
  for (const m of rec.messages) {
    const allowed = BY_ROLE[String(m.role)];
    assert.ok(allowed, `role ${String(m.role)}`);
    assert.deepEqual(
      Object.keys(m).filter((k) => !allowed.has(k)),
      [],
      `${String(m.role)} message`,
    );
  }
  assert.deepEqual(rec.tools, [{ type: "function", function: TOOLS[0] }]);
});
