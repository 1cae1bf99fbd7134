import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { NopPolicy } from "../../src/core/policy/nop";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { findReplayFile, ReplayPolicy } from "../../src/core/policy/replay";
import type { PolicyRequest, ToolSpec } from "../../src/core/policy/types";

const tool = (name: string, ...params: string[]): ToolSpec => ({
  name,
  description: name,
  parameters: { type: "object", properties: Object.fromEntries(params.map((p) => [p, { type: "string" }])) },
});
const req = (tools: ToolSpec[], turn = 0): PolicyRequest => ({ messages: [], tools, turn, signal: new AbortController().signal });
const noSandbox = () => Promise.reject(new Error("the oracle must not need a sandbox when tools can do the work"));

test("oracle: files via write_file, patch and commands via bash, tool calls as-is, then submit with the answer", async () => {
  const tools = [tool("write_file", "path", "content"), tool("bash", "command"), tool("submit", "answer")];
  const o = new OraclePolicy({
    files: { "a.py": "x = 1\n" },
    patch: "--- a/a.py\n+++ b/a.py\n",
    commands: ["make"],
    tool_calls: [{ name: "custom", arguments: { k: 1 } }],
    answer: 42,
  });
  await o.prepare({ tools, sandbox: noSandbox, signal: new AbortController().signal, timeoutMs: 1000 });
  const t0 = await o.next(req(tools));
  assert.deepEqual(
    t0.tool_calls.map((c) => c.name),
    ["write_file", "bash", "bash", "custom"],
  );
  assert.deepEqual(JSON.parse(t0.tool_calls[0]!.arguments), { path: "a.py", content: "x = 1\n" });
  assert.match(JSON.parse(t0.tool_calls[1]!.arguments).command, /RLENV_ORACLE_PATCH[\s\S]*git apply[\s\S]*patch -p1/);
  assert.deepEqual(JSON.parse(t0.tool_calls[2]!.arguments), { command: "make" });
  const t1 = await o.next(req(tools, 1));
  assert.deepEqual(
    t1.tool_calls.map((c) => [c.name, JSON.parse(c.arguments)]),
    [["submit", { answer: 42 }]],
  );
  const t2 = await o.next(req(tools, 2));
  assert.deepEqual(t2.tool_calls, [], "after the plan the oracle stops calling tools");
});

test("oracle: submit_report gets the answer object itself", async () => {
  const tools = [tool("search", "q"), tool("submit_report", "answer", "citations")];
  const o = new OraclePolicy({ answer: { answer: "1577", citations: [{ document: "r.md" }] } });
  await o.prepare({ tools, sandbox: noSandbox, signal: new AbortController().signal, timeoutMs: 1000 });
  const t0 = await o.next(req(tools));
  assert.deepEqual(
    t0.tool_calls.map((c) => [c.name, JSON.parse(c.arguments)]),
    [["submit_report", { answer: "1577", citations: [{ document: "r.md" }] }]],
  );
});

test("nop submits at once with no arguments", async () => {
  const r = await new NopPolicy().next(req([tool("submit")]));
  assert.deepEqual(
    r.tool_calls.map((c) => [c.name, c.arguments]),
    [["submit", "{}"]],
  );
});

test("replay: the assistant turns of a recorded trajectory, found by task and sample in a run folder", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-replay-"));
  const rollouts = path.join(dir, "rollouts");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(rollouts);
  const line = (o: object) => `${JSON.stringify(o)}\n`;
  const start = (task: string, sample: number) => ({
    type: "start",
    seq: 0,
    t: 0,
    run_id: "r",
    rollout_id: `${task}.s${sample}`,
    env: { name: "e", hash: "h", domain: "custom" },
    task: { id: task, prompt: "p" },
    policy: { kind: "openai" },
    sample,
    sandbox: { backend: "process" },
  });
  const asst = (seq: number, calls: Array<[string, string]>) => ({
    type: "message",
    seq,
    t: 0,
    role: "assistant",
    content: "c",
    tool_calls: calls.map(([name, args], i) => ({ id: `x${seq}${i}`, name, arguments: args })),
  });
  writeFileSync(path.join(rollouts, "a.s0.jsonl"), line(start("a", 0)) + line(asst(1, [["put", '{"p":1}']])));
  writeFileSync(
    path.join(rollouts, "a.s1.jsonl"),
    line(start("a", 1)) +
      line(
        asst(1, [
          ["put", '{"p":2}'],
          ["show", "{}"],
        ]),
      ) +
      line(asst(2, [["submit", "{}"]])),
  );
  const file = findReplayFile(dir, "a", 1);
  assert.equal(path.basename(file), "a.s1.jsonl");
  assert.equal(path.basename(findReplayFile(dir, "a", 7)), "a.s0.jsonl", "falls back to another sample of the task");
  assert.throws(() => findReplayFile(dir, "zzz", 0), /no rollout of task 'zzz'/);
  const p = new ReplayPolicy(file);
  assert.deepEqual(
    (await p.next(req([]))).tool_calls.map((c) => [c.name, c.arguments]),
    [
      ["put", '{"p":2}'],
      ["show", "{}"],
    ],
  );
  assert.deepEqual(
    (await p.next(req([]))).tool_calls.map((c) => c.name),
    ["submit"],
  );
  assert.deepEqual((await p.next(req([]))).tool_calls, []);
});
