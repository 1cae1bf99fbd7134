import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openEnvMount } from "../../../../src/core/serve/openenv/openenv-mount";
import { type OpenEnvServerError, OpenEnvWsClient } from "../../../support/openenv-client";
import { fakeContext, serveMount } from "./fake-serve";

describe("OpenEnv WS /ws translation", () => {
  const { ctx, registry, errors } = fakeContext(2);
  let srv: Awaited<ReturnType<typeof serveMount>>;
  before(async () => {
    srv = await serveMount(openEnvMount(ctx));
  });
  after(async () => srv.close());

  it("reset answers the task's prompt and tools (input_schema), no reward, and no reserved tool", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    const r = await c.reset({ task_id: "t7", episode_id: "mine" });
    assert.equal(r.done, false);
    assert.equal(r.reward, null);
    assert.equal(r.observation.prompt, "Solve t7");
    const tools = r.observation.tools as Array<{ name: string; input_schema: unknown }>;
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo", "submit"],
    );
    assert.ok(tools[0]?.input_schema);
    const meta = r.observation.metadata as Record<string, unknown>;
    assert.equal(meta.episode_id, "mine");
    assert.equal(meta.task_id, "t7");
    await c.close();
  });

  it("a call_tool step answers a CallToolObservation; submit brings done, reward and its components", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    await c.reset({ seed: 3 });
    const s1 = await c.callTool("echo", { text: "hi" });
    assert.equal(s1.done, false);
    assert.equal(s1.reward, null);
    assert.equal(s1.observation.tool_name, "echo");
    assert.equal((s1.observation.result as { data: string }).data, "hi");
    assert.equal("tools" in s1.observation, false, "a step observation must not look like ListToolsObservation");
    const s2 = await c.callTool("submit", { answer: "42" });
    assert.equal(s2.done, true);
    assert.equal(s2.reward, 1);
    const meta = s2.observation.metadata as { reward_components: Array<{ name: string }>; status: string };
    assert.equal(meta.status, "completed");
    assert.deepEqual(
      meta.reward_components.map((x) => x.name),
      ["exact"],
    );
    const state = await c.state();
    assert.equal(state.step_count, 2);
    assert.equal(state.done, true);
    await c.close();
  });

  it("call_tools plays several calls as one turn; list_tools needs no reset and takes no turn", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    const listed = await c.step({ type: "list_tools" });
    assert.deepEqual(
      (listed.observation.tools as Array<{ name: string }>).map((t) => t.name),
      ["echo", "submit"],
    );
    await c.reset({});
    const r = await c.step({
      type: "call_tools",
      tool_calls: [
        { tool_name: "echo", arguments: { text: "a" }, id: "x1" },
        { tool_name: "echo", arguments: '{"text":"b"}' },
      ],
    });
    assert.deepEqual(
      (r.observation.tool_results as Array<{ tool_call_id: string }>).map((t) => t.tool_call_id),
      ["x1", "call-1"],
    );
    assert.equal((await c.state()).step_count, 1);
    await c.close();
  });

  it("malformed messages are errors naming the field, and the session stays usable", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    await c.reset({});
    c.sendRaw("{not json");
    let reply = await c.receive();
    assert.equal((reply.data as { code: string }).code, "INVALID_JSON");
    reply = await c.request({ type: "dance" });
    assert.equal((reply.data as { code: string }).code, "UNKNOWN_TYPE");
    reply = await c.request({ type: "step" });
    assert.deepEqual(reply.data && { code: (reply.data as { code: string }).code, field: (reply.data as { field: string }).field }, {
      code: "VALIDATION_ERROR",
      field: "data",
    });
    reply = await c.request({ type: "step", data: { type: "call_tool", tool_name: 7 } });
    assert.equal((reply.data as { field: string }).field, "data.tool_name");
    assert.deepEqual((reply.data as { errors: Array<{ loc: unknown[] }> }).errors[0]?.loc, ["data", "tool_name"]);
    reply = await c.request({ type: "step", data: { type: "call_tool", tool_name: "reset" } });
    assert.match(String((reply.data as { message: string }).message), /reserved/);
    reply = await c.request({ type: "step", data: { type: "call_tool", tool_name: "echo", extra: 1 } });
    assert.equal((reply.data as { field: string }).field, "data.extra");
    reply = await c.request({ type: "reset", data: { seed: -1 } });
    assert.equal((reply.data as { field: string }).field, "data.seed");
    reply = await c.request({ type: "reset", data: { task_id: "missing" } });
    assert.equal((reply.data as { code: string }).code, "VALIDATION_ERROR");
    const ok = await c.callTool("echo", { text: "still here" });
    assert.equal((ok.observation.result as { data: string }).data, "still here");
    await c.close();
  });

  it("step before reset is an EXECUTION_ERROR; a machinery failure is an error, never a reward", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    await assert.rejects(c.callTool("echo", { text: "x" }), (e: OpenEnvServerError) => e.data.code === "EXECUTION_ERROR");
    await c.reset({});
    await assert.rejects(c.callTool("crash", {}), (e: OpenEnvServerError) => e.data.code === "EXECUTION_ERROR" && e.data.kind === "infra");
    assert.ok(errors.includes("infra"));
    await c.close();
  });

  it("capacity: the connection past --max-sessions gets CAPACITY_REACHED with the counts, never a hang", async () => {
    const a = await new OpenEnvWsClient(srv.url).connect();
    const b = await new OpenEnvWsClient(srv.url).connect();
    await a.reset({});
    await b.reset({});
    const c = await new OpenEnvWsClient(srv.url).connect();
    const reply = await c.receive(5000);
    assert.deepEqual({ type: reply.type, code: (reply.data as Record<string, unknown>).code }, { type: "error", code: "CAPACITY_REACHED" });
    assert.equal((reply.data as Record<string, unknown>).active_sessions, 2);
    assert.equal((reply.data as Record<string, unknown>).max_sessions, 2);
    await a.close();
    await b.close();
    // The slots free up once the sockets close.
    for (let i = 0; i < 100 && registry.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(registry.active, 0);
  });

  it("a client gone without a close message closes its session", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    const r = await c.reset({});
    const id = (r.observation.metadata as { session_id: string }).session_id;
    c.terminate();
    for (let i = 0; i < 100 && !registry.closedIds.includes(id); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(registry.closedIds.includes(id));
  });

  it("fork answers new session ids; each is reachable by /ws?session_id= and continues from the origin's state", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    await c.reset({ task_id: "t1" });
    await c.callTool("echo", { text: "x" });
    const [id] = await c.fork(1);
    assert.ok(id);
    const f = await new OpenEnvWsClient(srv.url, {}, `?session_id=${id}`).connect();
    const st = await f.state();
    assert.equal(st.session_id, id);
    assert.equal((st.forked_from as { turn: number }).turn, 1);
    assert.equal(typeof (st.forked_from as { episode_id: string }).episode_id, "string");
    const done = await f.callTool("submit", { answer: "1" });
    assert.equal(done.reward, 1);
    // A second socket may not take a session another one holds.
    const g = await new OpenEnvWsClient(srv.url, {}, `?session_id=${id}`).connect();
    const refused = await g.receive(5000);
    assert.equal((refused.data as { field: string }).field, "session_id");
    const h = await new OpenEnvWsClient(srv.url, {}, "?session_id=nope").connect();
    assert.equal(((await h.receive(5000)).data as { code: string }).code, "SESSION_ERROR");
    const bad = await c.request({ type: "fork", data: { n: 0 } });
    assert.equal((bad.data as { field: string }).field, "data.n");
    await f.close();
    await c.close();
  });

  it("mcp messages answer JSON-RPC in the mcp envelope; closing the socket's own session is refused", async () => {
    const c = await new OpenEnvWsClient(srv.url).connect();
    const listed = await c.mcp("tools/list", {}, 7);
    assert.equal(listed.id, 7);
    assert.deepEqual(
      ((listed.result as { tools: Array<{ name: string; inputSchema: unknown }> }).tools ?? []).map((t) => t.name),
      ["echo", "submit"],
    );
    const created = await c.mcp("openenv/session/create");
    const own = (created.result as { session_id: string }).session_id;
    const refused = await c.mcp("openenv/session/close", { session_id: own });
    assert.equal((refused.error as { code: number }).code, -32600);
    const unknown = await c.mcp("resources/list");
    assert.equal((unknown.error as { code: number }).code, -32601);
    assert.equal("result" in unknown, false);
    await c.close();
  });
});
