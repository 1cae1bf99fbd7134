import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { OpenAIResponsesPolicy } from "../../src/core/policy/openai-responses";
import { PolicyInfraError, type PolicyRequest, PolicyRequestError } from "../../src/core/policy/types";
import { callTool } from "../support/scripted-openai-server";
import { type ScriptedResponsesServer, startScriptedResponsesServer } from "../support/scripted-responses-server";

/**
 * The Responses policy answers a server's faults as the chat policy does (both go through
 * retried-request.ts): 5xx and 429 retried, a 4xx refused at once, spent retries an infra error.
 */
const fastBackoff = { baseMs: 5, maxMs: 20 };
const request = (): PolicyRequest => ({
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "do it" },
  ],
  tools: [{ name: "put", description: "write", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  turn: 0,
  signal: new AbortController().signal,
});

describe("responses policy retries", () => {
  const servers: ScriptedResponsesServer[] = [];
  const start = async (...args: Parameters<typeof startScriptedResponsesServer>) => {
    const s = await startScriptedResponsesServer(...args);
    servers.push(s);
    return s;
  };
  after(async () => {
    for (const s of servers) await s.close();
  });

  test("503 then 429 then an answer: three requests, the answer returned with its latency", async () => {
    const s = await start([{ status: 503 }, { status: 429 }, callTool("put", { path: "x" })]);
    const p = new OpenAIResponsesPolicy({ baseURL: s.baseURL, model: "m", retries: 3, backoff: fastBackoff });
    const r = await p.next(request());
    assert.equal(r.tool_calls[0]?.name, "put");
    assert.equal(s.requests.length, 3);
    assert.ok(typeof r.latencyMs === "number" && r.latencyMs >= 0);
  });

  test("a 400 is the request's fault: refused at once, not retried", async () => {
    const s = await start([{ status: 400 }, callTool("put", { path: "x" })]);
    const p = new OpenAIResponsesPolicy({ baseURL: s.baseURL, model: "m", retries: 3, backoff: fastBackoff });
    await assert.rejects(p.next(request()), (e) => e instanceof PolicyRequestError && e.status === 400);
    assert.equal(s.requests.length, 1);
  });

  test("retries spent: an infrastructure error naming the server, never a reply", async () => {
    const s = await start([{ status: 500 }, { status: 502 }, { status: 503 }]);
    const p = new OpenAIResponsesPolicy({ baseURL: s.baseURL, model: "m", retries: 2, backoff: fastBackoff });
    await assert.rejects(
      p.next(request()),
      (e) => e instanceof PolicyInfraError && e.message.includes(s.baseURL) && /3 times/.test(e.message),
    );
    assert.equal(s.requests.length, 3);
  });
});
