import assert from "node:assert/strict";
import { test } from "node:test";
import { createPolicy } from "../../src/core/policy/create";
import { HumanActionError, HumanPolicy, type HumanRequest } from "../../src/core/policy/human";
import type { PolicyRequest, ToolSpec } from "../../src/core/policy/types";
import type { LoadedTask } from "../../src/core/model/environment";

const tools: ToolSpec[] = [
  {
    name: "put",
    description: "write a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  { name: "submit", description: "submit", parameters: { type: "object", properties: { answer: { type: "string" } } } },
];
const req = (turn: number, signal = new AbortController().signal): PolicyRequest => ({
  messages: [{ role: "user", content: "do it" }],
  tools,
  turn,
  signal,
});

test("next publishes the request and waits; a tool move becomes one tool call with JSON arguments", async () => {
  const p = new HumanPolicy();
  const seen: Array<HumanRequest | null> = [];
  p.onRequest((r) => seen.push(r));
  const reply = p.next(req(0));
  assert.equal(p.current()?.turn, 0);
  assert.deepEqual(p.current()?.messages, [{ role: "user", content: "do it" }]);
  assert.deepEqual(
    p.current()?.tools.map((t) => t.name),
    ["put", "submit"],
  );
  p.answer({ kind: "tool", name: "put", arguments: { path: "a.txt" }, content: "writing it" });
  const r = await reply;
  assert.equal(r.content, "writing it");
  assert.deepEqual(
    r.tool_calls.map((c) => [c.name, JSON.parse(c.arguments)]),
    [["put", { path: "a.txt" }]],
  );
  assert.equal(p.current(), null);
  assert.deepEqual(
    seen.map((s) => s?.turn ?? null),
    [0, null],
  );
  assert.equal(p.kind, "human");
});

test("raw JSON arguments are checked; a bad move is refused and the request stays open", async () => {
  const p = new HumanPolicy();
  const reply = p.next(req(2));
  assert.throws(
    () => p.answer({ kind: "tool", name: "rm", arguments: {} }),
    (e: Error) => e instanceof HumanActionError && /unknown tool 'rm'; the tools are: put, submit/.test(e.message),
  );
  assert.throws(() => p.answer({ kind: "tool", name: "put", arguments: "{not json" }), /not valid JSON/);
  assert.throws(() => p.answer({ kind: "tool", name: "put", arguments: "[1]" }), /must be a JSON object/);
  assert.throws(() => p.answer({ kind: "message", content: "  " }), /final message is empty/);
  assert.equal(p.current()?.turn, 2);
  p.answer({ kind: "tool", name: "submit", arguments: '{"answer": "42"}' });
  assert.deepEqual(JSON.parse((await reply).tool_calls[0]?.arguments ?? ""), { answer: "42" });
});

test("a final message ends with no tool call; answering when nothing waits is an error", async () => {
  const p = new HumanPolicy();
  assert.throws(() => p.answer({ kind: "message", content: "done" }), /no move is awaited/);
  const reply = p.next(req(1));
  p.answer({ kind: "message", content: "The answer is 42." });
  assert.deepEqual(await reply, { content: "The answer is 42.", tool_calls: [], latencyMs: (await reply).latencyMs });
});

test("the rollout's signal ends the wait and withdraws the request", async () => {
  const p = new HumanPolicy();
  const ac = new AbortController();
  const seen: Array<HumanRequest | null> = [];
  p.onRequest((r) => seen.push(r));
  const reply = p.next(req(0, ac.signal));
  ac.abort(new Error("stopped by the user"));
  await assert.rejects(reply, /stopped by the user/);
  assert.equal(p.current(), null);
  assert.deepEqual(
    seen.map((s) => s?.turn ?? null),
    [0, null],
  );
  await assert.rejects(p.next(req(1, ac.signal)), /stopped by the user/);
});

test("createPolicy refuses kind human with a clear error: only the editor can play it", () => {
  const task = { id: "t", prompt: "p" } as LoadedTask;
  assert.throws(
    () => createPolicy({ kind: "human" } as Parameters<typeof createPolicy>[0], task, 0),
    /policy human needs a person at the editor.*Play Task.*CLI/,
  );
});

test("cancel (the panel closed) fails the waiting request and every later one", async () => {
  const p = new HumanPolicy();
  const reply = p.next(req(0));
  p.cancel(new Error("the Play Task panel was closed"));
  await assert.rejects(reply, /panel was closed/);
  assert.equal(p.current(), null);
  await assert.rejects(p.next(req(1)), /panel was closed/);
});

test("the CLI refuses --policy human with the same advice", async () => {
  const { policyFromFlags } = await import("../../src/cli/commands/run");
  assert.throws(
    () => policyFromFlags({ policy: "human" } as Parameters<typeof policyFromFlags>[0]),
    /--policy human needs a person at the editor.*Play Task/,
  );
});
