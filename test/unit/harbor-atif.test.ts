// A rollout as Harbor's ATIF trajectory (v1.4: the RFC's required fields and references), and
// an ATIF trajectory back as our events, valid for the viewer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type AtifTrajectory, atifToEvents, isAtif, rolloutToAtif } from "../../src/core/harbor/atif";
import { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { startEvent } from "../support/run-folder";

const T = Date.parse("2026-01-02T03:04:05Z");
const EVENTS = [
  {
    ...startEvent({
      run_id: "run-1",
      rollout_id: "regex-log.s0",
      env: { name: "regex-log", hash: "abc", domain: "code" },
      task: { id: "regex-log", prompt: "Write a regex" },
      policy: { kind: "openai", model: "qwen" },
      sandbox: { backend: "docker" },
    }),
    seq: 0,
    t: T,
  },
  { type: "message", seq: 1, t: T, role: "system", content: "You are careful." },
  { type: "message", seq: 2, t: T, role: "user", content: "Write a regex" },
  {
    type: "message",
    seq: 3,
    t: T + 1000,
    role: "assistant",
    content: "Looking.",
    tool_calls: [
      { id: "c1", name: "bash", arguments: '{"command":"ls"}' },
      { id: "c2", name: "bash", arguments: "not json" },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    turn: 0,
  },
  { type: "tool_call", seq: 4, t: T + 1100, id: "c1", name: "bash", arguments: { command: "ls" }, turn: 0 },
  { type: "observation", seq: 5, t: T + 1200, tool_call_id: "c1", name: "bash", output: "a.txt\n", status: "ok", duration_ms: 5, turn: 0 },
  { type: "message", seq: 6, t: T + 2000, role: "assistant", content: "Done.", turn: 1 },
  {
    type: "reward",
    seq: 7,
    t: T + 3000,
    total: 0.5,
    components: [
      { name: "correctness", type: "harbor", weight: 1, score: 1 },
      { name: "performance", type: "harbor", weight: 1, score: 0 },
    ],
  },
  {
    type: "end",
    seq: 8,
    t: T + 3000,
    status: "completed",
    reward: 0.5,
    turns: 2,
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    timings: { total_ms: 3000, policy_ms: 1, sandbox_ms: 1, verify_ms: 1 },
  },
].map((e) => TrajectoryEvent.parse(e));

/** The ATIF RFC's rules (required fields, enums, step numbering, observation references). */
function atifErrors(a: AtifTrajectory): string[] {
  const errors: string[] = [];
  if (!/^ATIF-v1\.\d+$/.test(a.schema_version)) errors.push("schema_version");
  if (typeof a.session_id !== "string" || !a.session_id) errors.push("session_id");
  if (typeof a.agent?.name !== "string" || typeof a.agent?.version !== "string") errors.push("agent.name/version");
  a.steps.forEach((s, i) => {
    if (s.step_id !== i + 1) errors.push(`steps[${i}].step_id`);
    if (!["system", "user", "agent"].includes(s.source)) errors.push(`steps[${i}].source`);
    if (typeof s.message !== "string") errors.push(`steps[${i}].message`);
    if (s.timestamp !== undefined && Number.isNaN(Date.parse(s.timestamp))) errors.push(`steps[${i}].timestamp`);
    if (s.source !== "agent" && (s.tool_calls || s.metrics || s.model_name)) errors.push(`steps[${i}]: agent-only fields`);
    const ids = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const c of s.tool_calls ?? [])
      if (typeof c.function_name !== "string" || typeof c.arguments !== "object" || c.arguments === null || Array.isArray(c.arguments))
        errors.push(`steps[${i}].tool_calls`);
    for (const r of s.observation?.results ?? [])
      if (r.source_call_id !== undefined && !ids.has(r.source_call_id)) errors.push(`steps[${i}].observation`);
  });
  return errors;
}

test("a rollout as ATIF: one step per message, tool calls with their results, tokens, the reward's components in extra", () => {
  const a = rolloutToAtif(EVENTS, "1.2.3");
  assert.deepEqual(atifErrors(a), []);
  assert.equal(a.schema_version, "ATIF-v1.4");
  assert.equal(a.session_id, "regex-log.s0");
  assert.deepEqual(a.agent, { name: "rlenv-openai", version: "1.2.3", model_name: "qwen" });
  assert.deepEqual(
    a.steps.map((s) => [s.step_id, s.source, s.message]),
    [
      [1, "system", "You are careful."],
      [2, "user", "Write a regex"],
      [3, "agent", "Looking."],
      [4, "agent", "Done."],
    ],
  );
  const act = a.steps[2];
  assert.deepEqual(act?.tool_calls, [
    { tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } },
    { tool_call_id: "c2", function_name: "bash", arguments: { raw: "not json" } },
  ]);
  assert.deepEqual(act?.observation, { results: [{ source_call_id: "c1", content: "a.txt\n" }] });
  assert.deepEqual(act?.metrics, { prompt_tokens: 10, completion_tokens: 5 });
  assert.equal(act?.timestamp, "2026-01-02T03:04:06.000Z");
  assert.deepEqual(a.final_metrics, { total_prompt_tokens: 10, total_completion_tokens: 5, total_steps: 4 });
  const rl = a.extra?.rlenv as { reward: { total: number; components: Array<{ name: string }> }; status: string };
  assert.equal(rl.reward.total, 0.5);
  assert.deepEqual(
    rl.reward.components.map((c) => c.name),
    ["correctness", "performance"],
  );
  assert.equal(rl.status, "completed");
});

test("ATIF back as our events: every event valid, messages, calls, results and reward kept", () => {
  const a = JSON.parse(JSON.stringify(rolloutToAtif(EVENTS, "dev"))) as unknown;
  assert.ok(isAtif(a));
  const events = atifToEvents(a);
  for (const e of events) TrajectoryEvent.parse(e);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i),
  );
  const msgs = events.flatMap((e) => (e.type === "message" ? [[e.role, e.content]] : []));
  assert.deepEqual(msgs, [
    ["system", "You are careful."],
    ["user", "Write a regex"],
    ["assistant", "Looking."],
    ["assistant", "Done."],
  ]);
  const obs = events.find((e) => e.type === "observation");
  assert.equal(obs?.type === "observation" ? obs.output : null, "a.txt\n");
  const end = events.at(-1);
  assert.equal(end?.type === "end" ? end.reward : null, 0.5);
  assert.equal(events.find((e) => e.type === "reward")?.type, "reward");
  // A Harbor agent's step whose result came from no tool call is shown as the environment's reply.
  const harbor: AtifTrajectory = {
    schema_version: "ATIF-v1.2",
    session_id: "s",
    agent: { name: "terminus-2", version: "1" },
    steps: [
      { step_id: 1, source: "user", message: "do it" },
      { step_id: 2, source: "agent", message: "ls", observation: { results: [{ content: "x" }] } },
    ],
  };
  const h = atifToEvents(harbor);
  for (const e of h) TrajectoryEvent.parse(e);
  assert.deepEqual(
    h.flatMap((e) => (e.type === "message" ? [e.role] : [])),
    ["user", "assistant", "user"],
  );
  assert.equal(isAtif({ schema_version: "1.0", steps: [] }), false);
});
