import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { openEnvMount } from "../../../../src/core/serve/openenv/openenv-mount";
import { mcpPost } from "../../../support/openenv-client";
import { fakeContext, serveMount } from "./fake-serve";

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("OpenEnv HTTP and MCP translation", () => {
  const { ctx, registry } = fakeContext(2);
  let srv: Awaited<ReturnType<typeof serveMount>>;
  before(async () => {
    srv = await serveMount(openEnvMount(ctx));
  });
  after(async () => srv.close());

  it("GET /health, /metadata, /schema and a fresh /state answer as OpenEnv's server", async () => {
    assert.deepEqual(await (await fetch(`${srv.url}/health`)).json(), { status: "healthy" });
    const meta = (await (await fetch(`${srv.url}/metadata`)).json()) as Record<string, unknown>;
    assert.equal(meta.name, "fake");
    assert.equal(meta.description, "A fake");
    const schema = (await (await fetch(`${srv.url}/schema`)).json()) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(schema).sort(), ["action", "observation", "state"]);
    assert.ok(JSON.stringify(schema.action).includes("call_tool"));
    assert.deepEqual(await (await fetch(`${srv.url}/state`)).json(), { episode_id: null, step_count: 0 });
  });

  it("stateless POST /reset and /step: a fresh session per request, closed after", async () => {
    const before = registry.closedIds.length;
    const r = await post(`${srv.url}/reset`, { task_id: "t2" });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json).sort(), ["done", "observation", "reward"]);
    const s = await post(`${srv.url}/step`, {
      action: { type: "call_tool", tool_name: "submit", arguments: { answer: "a" } },
      task_id: "t2",
    });
    assert.equal(s.status, 200);
    assert.equal(s.json.done, true);
    assert.equal(s.json.reward, 1);
    assert.equal(registry.closedIds.length, before + 2);
    assert.equal(registry.active, 0);
    // An empty body is a default ResetRequest.
    assert.equal((await fetch(`${srv.url}/reset`, { method: "POST" })).status, 200);
  });

  it("a malformed body is FastAPI's 422 with the field's loc", async () => {
    const missing = await post(`${srv.url}/step`, {});
    assert.equal(missing.status, 422);
    assert.deepEqual((missing.json.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "action"]);
    const badTool = await post(`${srv.url}/step`, { action: { type: "call_tool" } });
    assert.deepEqual((badTool.json.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "action", "tool_name"]);
    assert.equal((await post(`${srv.url}/reset`, "{oops")).status, 422);
  });

  it("MCP over POST /mcp: session create, tools/list, tools/call to done with the reward, close", async () => {
    const created = await mcpPost(srv.url, "openenv/session/create", { task_id: "t5" });
    const sid = (created.result as { session_id: string }).session_id;
    assert.ok(sid);
    const listed = await mcpPost(srv.url, "tools/list", { session_id: sid });
    assert.ok((listed.result as { tools: Array<{ inputSchema: unknown }> }).tools[0]?.inputSchema);
    const echoed = await mcpPost(srv.url, "tools/call", { session_id: sid, name: "echo", arguments: { text: "yo" } });
    assert.equal((echoed.result as { data: string }).data, "yo");
    assert.deepEqual((echoed.result as { content: unknown }).content, [{ type: "text", text: "yo" }]);
    const done = await mcpPost(srv.url, "tools/call", { session_id: sid, name: "submit", arguments: { answer: "x" } });
    assert.equal((done.result as { done: boolean }).done, true);
    assert.equal((done.result as { reward: number }).reward, 1);
    const closed = await mcpPost(srv.url, "openenv/session/close", { session_id: sid });
    assert.deepEqual(closed.result, { session_id: sid, closed: true });
    const again = await mcpPost(srv.url, "openenv/session/close", { session_id: sid });
    assert.equal((again.error as { code: number }).code, -32602);
    assert.match((again.error as { message: string }).message, /Unknown session_id/);
  });

  it("JSON-RPC errors carry OpenEnv's codes", async () => {
    const parse = await (await fetch(`${srv.url}/mcp`, { method: "POST", body: "{x" })).json();
    assert.equal((parse as { error: { code: number } }).error.code, -32700);
    const invalid = await post(`${srv.url}/mcp`, { jsonrpc: "1.0", method: "tools/list" });
    assert.equal((invalid.json.error as { code: number }).code, -32600);
    const noName = await mcpPost(srv.url, "tools/call", { arguments: {} });
    assert.equal((noName.error as { code: number }).code, -32602);
    assert.match((noName.error as { message: string }).message, /name/);
    const closeNoId = await mcpPost(srv.url, "openenv/session/close", {});
    assert.equal((closeNoId.error as { code: number }).code, -32602);
    const init = await mcpPost(srv.url, "initialize", {}, {}, "abc");
    assert.equal((init.error as { code: number }).code, -32601);
    assert.equal(init.id, "abc");
  });

  it("MCP capacity is SERVER_ERROR with the counts", async () => {
    const a = await mcpPost(srv.url, "openenv/session/create");
    const b = await mcpPost(srv.url, "openenv/session/create");
    const c = await mcpPost(srv.url, "openenv/session/create");
    assert.equal((c.error as { code: number }).code, -32000);
    assert.deepEqual(
      {
        a: (c.error as { data: Record<string, unknown> }).data.active_sessions,
        m: (c.error as { data: Record<string, unknown> }).data.max_sessions,
      },
      { a: 2, m: 2 },
    );
    for (const r of [a, b])
      await mcpPost(srv.url, "openenv/session/close", { session_id: (r.result as { session_id: string }).session_id });
    assert.equal(registry.active, 0);
  });

  it("WS /mcp: one session per connection, bare JSON-RPC, parse errors answered", async () => {
    const ws = new WebSocket(`${srv.url.replace("http", "ws")}/mcp`);
    await new Promise((r) => ws.once("open", r));
    const replies: Record<string, unknown>[] = [];
    ws.on("message", (m) => replies.push(JSON.parse(m.toString())));
    ws.send("{bad");
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "echo", arguments: { text: "w" }, task_id: "t1" }, id: 2 }),
    );
    for (let i = 0; i < 200 && replies.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((replies[0]?.error as { code: number } | undefined)?.code, -32700);
    assert.equal(replies[1]?.id, 2);
    assert.equal((replies[1]?.result as { data: string } | undefined)?.data, "w");
    assert.equal(registry.active, 1);
    ws.close();
    for (let i = 0; i < 100 && registry.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(registry.active, 0);
  });
});
