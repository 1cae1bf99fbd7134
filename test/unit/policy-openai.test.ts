import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { after, describe, test } from "node:test";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { PolicyInfraError, type PolicyRequest, PolicyRequestError } from "../../src/core/policy/types";
import { callTool, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";

const fastBackoff = { baseMs: 5, maxMs: 20 };
const request = (signal = new AbortController().signal): PolicyRequest => ({
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "do it" },
  ],
  tools: [{ name: "put", description: "write", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  turn: 0,
  signal,
});

describe("openai policy against the scripted server", () => {
  const servers: ScriptedServer[] = [];
  const start = async (...args: Parameters<typeof startScriptedServer>) => {
    const s = await startScriptedServer(...args);
    servers.push(s);
    return s;
  };
  after(async () => {
    for (const s of servers) await s.close();
  });

  test("sends model, tools and sampling params; reads tool calls and usage", async () => {
    const s = await start([
      {
        reply: { content: "thinking", tool_calls: [{ name: "put", arguments: { path: "a" } }] },
        usage: { prompt_tokens: 42, completion_tokens: 7 },
      },
    ]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m1", apiKey: "k", temperature: 0.5, topP: 0.9, maxTokens: 100, seed: 3 });
    const r = await p.next(request());
    assert.equal(r.content, "thinking");
    assert.deepEqual(r.tool_calls, [{ id: "call_0_0", name: "put", arguments: '{"path":"a"}' }]);
    assert.deepEqual(r.usage, { prompt_tokens: 42, completion_tokens: 7 });
    const sent = s.requests[0]!;
    assert.equal(sent.model, "m1");
    assert.equal(sent.temperature, 0.5);
    assert.equal(sent.top_p, 0.9);
    assert.equal(sent.max_tokens, 100);
    assert.equal(sent.seed, 3);
    assert.equal(sent.tools?.[0]?.function.name, "put");
    assert.equal(sent.messages.length, 2);
  });

  test("500 twice, then an answer: retried with backoff, three requests", async () => {
    const s = await start([{ status: 500 }, { status: 503 }, callTool("put", { path: "x" })]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", retries: 3, backoff: fastBackoff });
    const r = await p.next(request());
    assert.equal(r.tool_calls[0]?.name, "put");
    assert.equal(s.requests.length, 3);
  });

  test("429 is retried too", async () => {
    const s = await start([{ status: 429 }, callTool("put", {})]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", backoff: fastBackoff });
    await p.next(request());
    assert.equal(s.requests.length, 2);
  });

  test("a 4xx is never retried and is a request error, not an infra error", async () => {
    const s = await start([{ status: 400, message: "context too long" }, callTool("put", {})]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", backoff: fastBackoff });
    await assert.rejects(
      p.next(request()),
      (e: unknown) => e instanceof PolicyRequestError && e.status === 400 && /context too long/.test(e.message),
    );
    assert.equal(s.requests.length, 1);
  });

  test("a server that hangs past the timeout: every attempt times out, then PolicyInfraError", async () => {
    const s = await start([{ hang: true }]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", timeoutMs: 200, retries: 1, backoff: fastBackoff });
    const t0 = Date.now();
    await assert.rejects(p.next(request()), (e: unknown) => e instanceof PolicyInfraError && /failed 2 times/.test(e.message));
    assert.equal(s.requests.length, 2);
    assert.ok(Date.now() - t0 < 5000);
  });

  test("a dropped connection is retried", async () => {
    const s = await start([{ reset: true }, callTool("put", {})]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", backoff: fastBackoff });
    const r = await p.next(request());
    assert.equal(r.tool_calls.length, 1);
    assert.equal(s.requests.length, 2);
  });

  test("abort stops a hanging request at once, without retries", async () => {
    const s = await start([{ hang: true }]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", timeoutMs: 60_000, backoff: fastBackoff });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("user cancelled")), 100);
    await assert.rejects(p.next(request(ac.signal)), /user cancelled/);
    assert.equal(s.requests.length, 1);
  });

  test("a run's signal keeps no listener from requests that ended (plain, capture, streamed), however many turns", async () => {
    const s = await start([{ reply: { content: "ok" }, tokens: { prompt_token_ids: [1, 2], token_ids: [3], logprobs: [-0.5] } }]);
    for (const opts of [{ capture: false }, { capture: true }, { stream: true }]) {
      const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", ...opts });
      const signal = new AbortController().signal;
      for (let turn = 0; turn < 12; turn++) assert.equal((await p.next({ ...request(signal), turn })).content, "ok");
      assert.equal(getEventListeners(signal, "abort").length, 0, JSON.stringify(opts));
    }
  });

  test("abort while streaming stops the stream with the run's reason, and leaves no listener", async () => {
    const s = await start([{ hang: true }]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", stream: true, timeoutMs: 60_000, backoff: fastBackoff });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("user cancelled")), 100);
    await assert.rejects(p.next(request(ac.signal)), /user cancelled/);
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);
  });

  test("streaming: content and tool-call deltas are assembled, usage read from the last chunk", async () => {
    const s = await start([
      {
        reply: {
          content: "I will write two files now.",
          tool_calls: [
            { name: "put", arguments: { path: "a.txt", text: "hello" } },
            { name: "put", arguments: { path: "b.txt", text: "world" } },
          ],
        },
        usage: { prompt_tokens: 11, completion_tokens: 22 },
      },
    ]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", stream: true });
    const r = await p.next(request());
    assert.equal(s.requests[0]?.stream, true);
    assert.equal(r.content, "I will write two files now.");
    assert.deepEqual(
      r.tool_calls.map((c) => [c.name, JSON.parse(c.arguments)]),
      [
        ["put", { path: "a.txt", text: "hello" }],
        ["put", { path: "b.txt", text: "world" }],
      ],
    );
    assert.deepEqual(r.usage, { prompt_tokens: 11, completion_tokens: 22 });
  });

  test("assistant tool calls and tool results go back in the wire format", async () => {
    const s = await start([{ reply: { content: "ok" } }]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m" });
    await p.next({
      ...request(),
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", name: "put", arguments: "{}" }] },
        { role: "tool", tool_call_id: "c1", content: "done" },
      ],
    });
    const m = s.requests[0]!.messages;
    assert.deepEqual(m[1]?.tool_calls, [{ id: "c1", type: "function", function: { name: "put", arguments: "{}" } }]);
    assert.equal(m[2]?.tool_call_id, "c1");
    assert.equal(m[2]?.content, "done");
  });
});
