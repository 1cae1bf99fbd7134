import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { classifyFailure } from "../../src/core/rollout/rollout-failure";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { retryAfterMs } from "../../src/core/policy/server-reply";
import { PolicyInfraError, type PolicyRequest } from "../../src/core/policy/types";
import type { RolloutScope } from "../../src/core/rollout/rollout-scope";
import { callTool, type ScriptedServer, type ScriptStep, startScriptedServer } from "../support/scripted-openai-server";

const fastBackoff = { baseMs: 5, maxMs: 20 };
const request = (): PolicyRequest => ({
  messages: [{ role: "user", content: "do it" }],
  tools: [{ name: "put", description: "write", parameters: { type: "object", properties: {} } }],
  turn: 0,
  signal: new AbortController().signal,
});

const html: ScriptStep = {
  raw: { status: 200, headers: { "content-type": "text/html" }, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" },
};
const empty: ScriptStep = { raw: { status: 200, headers: { "content-type": "application/json" }, body: "" } };
const cut: ScriptStep = {
  raw: {
    status: 200,
    headers: { "content-type": "application/json" },
    body: '{"id":"x","object":"chat.completion","choices":[{"index":0,"mess',
  },
};
const eventStream = (body: string): ScriptStep => ({ raw: { status: 200, headers: { "content-type": "text/event-stream" }, body } });

/** The scope classifyFailure reads: nothing lost, no deadline, no abort from outside. */
const quietScope = {
  outside: undefined,
  startFailure: undefined,
  lost: async () => false,
  signal: new AbortController().signal,
} as unknown as RolloutScope;

describe("a policy server that answers 2xx with a body that is not a completion", () => {
  const servers: ScriptedServer[] = [];
  const start = async (steps: ScriptStep[]) => {
    const s = await startScriptedServer(steps);
    servers.push(s);
    return s;
  };
  after(async () => {
    for (const s of servers) await s.close();
  });

  for (const [name, step] of [
    ["an HTML page", html],
    ["an empty body", empty],
    ["JSON cut short", cut],
  ] as const) {
    for (const capture of [true, false]) {
      test(`${name} (capture ${capture}) is retried, and the next good answer is taken`, async () => {
        const s = await start([step, step, callTool("put", {})]);
        const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", retries: 3, backoff: fastBackoff, capture });
        const r = await p.next(request());
        assert.equal(r.tool_calls[0]?.name, "put");
        assert.equal(s.requests.length, 3);
      });
    }

    test(`${name} every time ends as an infrastructure error of the policy, kept out of the scores`, async () => {
      const s = await start([step]);
      const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", retries: 2, backoff: fastBackoff });
      const caught = await p.next(request()).then(
        () => assert.fail("an unreadable reply was taken as an answer"),
        (e: unknown) => e,
      );
      assert.ok(caught instanceof PolicyInfraError, String(caught));
      assert.match(caught.message, /failed 3 times/);
      assert.equal(s.requests.length, 3);
      const failure = await classifyFailure(caught, quietScope);
      assert.equal(failure.error?.where, "policy");
      assert.equal(failure.error?.infra, true);
    });
  }

  test("a stream with no event, or one cut before its finish, is retried", async () => {
    const cutStream = eventStream(
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hal"},"finish_reason":null}]}\n\n',
    );
    const s = await start([html, cutStream, eventStream(""), callTool("put", {})]);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", retries: 3, backoff: fastBackoff, stream: true });
    const r = await p.next(request());
    assert.equal(r.tool_calls[0]?.name, "put");
    assert.equal(s.requests.length, 4);
  });

  test("a 429 with Retry-After is asked again no sooner than it says", async () => {
    const arrived: number[] = [];
    const s = await startScriptedServer((_req, i) => {
      arrived.push(Date.now());
      return i === 0 ? { status: 429, headers: { "retry-after": "1" } } : callTool("put", {});
    });
    servers.push(s);
    const p = new OpenAIPolicy({ baseURL: s.baseURL, model: "m", retries: 2, backoff: fastBackoff });
    await p.next(request());
    assert.equal(arrived.length, 2);
    // A lower bound the sleep guarantees (our own backoff here is at most 20 ms), not a timing guess.
    assert.ok(arrived[1]! - arrived[0]! >= 990, `asked again after ${arrived[1]! - arrived[0]!} ms`);
  });
});

describe("Retry-After", () => {
  test("reads delay-seconds and an HTTP-date, caps both, ignores what it cannot read", () => {
    const now = Date.parse("2026-12-05T09:00:00Z");
    assert.equal(retryAfterMs("3", now), 3000);
    assert.equal(retryAfterMs("Sat, 05 Dec 2026 09:00:07 GMT", now), 7000);
    assert.equal(retryAfterMs("Sat, 05 Dec 2026 08:59:00 GMT", now), 0);
    assert.equal(retryAfterMs("86400", now), 60_000);
    assert.equal(retryAfterMs("soon", now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});
