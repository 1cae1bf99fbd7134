// The NeMo Gym mount over HTTP: the resources server's cookie, tool and verify translation (on a
// session double: the real served session is the conformance suite's), and the agent's /run on
// the real engine (runRollout, the process sandbox) against scripted chat and Responses servers.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { nemoGymMount } from "../../../../src/core/serve/nemo-gym/nemo-gym-mount";
import {
  ServeError,
  type ServedObservation,
  type ServedScore,
  type ServedToolCall,
  type SessionHandle,
} from "../../../../src/core/serve/session-types";
import { events, FIXTURE, fixtureEnv, ofType, processProvider, tmp } from "../../../integration/rollout-helpers";
import { callTool, startScriptedServer } from "../../../support/scripted-openai-server";
import { startScriptedResponsesServer } from "../../../support/scripted-responses-server";
import { jar, makeContext, post, servedOf, serveMount } from "./mount-helpers";

const env = fixtureEnv();

class SessionDouble implements SessionHandle {
  readonly id = randomUUID();
  readonly calls: ServedToolCall[][] = [];
  finalWord: string | null | undefined;
  closed = false;
  constructor(private readonly score: ServedScore) {}
  private obs(over: Partial<ServedObservation>): ServedObservation {
    return {
      episode_id: "ep-1",
      environment: env.manifest.name,
      task_id: "via-tool-calls",
      messages: [],
      tools: [],
      tool_results: [],
      turn: 0,
      max_turns: 6,
      done: false,
      trajectory: "/runs/ep-1.jsonl",
      ...over,
    };
  }
  async reset(req: { task_id?: string }) {
    if (req.task_id === "missing") throw new ServeError("not_found", "no task 'missing'");
    return this.obs({ task_id: req.task_id ?? "via-tool-calls", messages: [{ role: "user", content: "do it" }] });
  }
  async step(calls: ServedToolCall[]) {
    this.calls.push(calls);
    const c = calls[0]!;
    return this.obs({
      tool_results: [{ tool_call_id: "c0", name: c.name, content: `ran ${c.name}`, is_error: false }],
      done: c.name === "submit",
    });
  }
  async finish(text: string | null) {
    this.finalWord = text;
    return this.obs({ done: true, score: this.score });
  }
  state() {
    return { episode_id: "ep-1", step_count: this.calls.length, environment: env.manifest.name, task_id: "via-tool-calls", done: false };
  }
  async fork(): Promise<SessionHandle[]> {
    throw new Error("not here");
  }
  async forkObservation(): Promise<ServedObservation> {
    throw new Error("not here");
  }
  async close() {
    this.closed = true;
  }
}

const scored: ServedScore = {
  status: "completed",
  reward: 0.5,
  infra: false,
  components: [
    { name: "hidden-check", type: "tests", weight: 1, score: 1 },
    { name: "answer", type: "exact", weight: 1, score: 0 },
  ],
};
const row = { responses_create_params: { input: [{ role: "user", content: "do it" }], model: "policy" }, task_id: "via-tool-calls" };
const response = (text: string) => ({
  id: "resp_1",
  created_at: 1,
  model: "policy",
  object: "response",
  output: [{ type: "message", role: "assistant", id: "m", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
});

test("resources server: seed_session sets the session cookie, tools and verify read it, verify scores and closes the session", async () => {
  const made: SessionDouble[] = [];
  const ctx = makeContext(servedOf(env, undefined as never, FIXTURE, tmp("rlenv-nemo-")), () => {
    const s = new SessionDouble(scored);
    made.push(s);
    return s;
  });
  const srv = await serveMount(nemoGymMount(ctx));
  try {
    const seeded = await post(`${srv.url}/seed_session`, row);
    assert.equal(seeded.status, 200);
    assert.match(seeded.setCookie ?? "", /^RlenvResourcesServer___rlenv_serve=.+; path=\/; Max-Age=1209600; httponly; samesite=lax$/);
    assert.equal((seeded.json.rlenv as { task_id: string }).task_id, "via-tool-calls");
    const cookie = jar(seeded.setCookie);

    const put = await post(`${srv.url}/put`, { path: "greet.txt", text: "hi" }, cookie);
    assert.equal(put.status, 200);
    assert.deepEqual(put.json, { output: "ran put", is_error: false, done: false });
    assert.deepEqual(made[0]?.calls[0], [{ name: "put", arguments: { path: "greet.txt", text: "hi" } }]);

    const noCookie = await post(`${srv.url}/put`, { path: "x", text: "y" });
    assert.equal(noCookie.status, 400);
    assert.match(String(noCookie.json.detail), /seed_session/);
    const notObject = await post(`${srv.url}/put`, "[1]", cookie);
    assert.equal(notObject.status, 422);
    const broken = await post(`${srv.url}/put`, "{not json", cookie);
    assert.equal(broken.status, 422);
    assert.equal((broken.json.detail as Array<{ type: string }>)[0]?.type, "json_invalid");
    assert.equal(made[0]?.calls.length, 1, "refused calls never reach the episode");

    const badVerify = await post(`${srv.url}/verify`, { responses_create_params: row.responses_create_params }, cookie);
    assert.equal(badVerify.status, 422);
    assert.deepEqual((badVerify.json.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "response"]);

    const verified = await post(`${srv.url}/verify`, { ...row, response: response("42") }, cookie);
    assert.equal(verified.status, 200);
    assert.equal(verified.json.reward, 0.5);
    assert.deepEqual(verified.json.reward_components, { "hidden-check": 1, answer: 0 });
    assert.equal(verified.json.task_id, "via-tool-calls", "the request comes back with the reward");
    assert.equal(made[0]?.finalWord, "42");
    assert.equal(made[0]?.closed, true, "the episode's session goes once verified");
    assert.equal(ctx.sessions.active, 0);
    assert.equal((await post(`${srv.url}/put`, { path: "x", text: "y" }, cookie)).status, 400, "the old cookie names no session");

    const missing = await post(`${srv.url}/seed_session`, { ...row, task_id: "missing" });
    assert.equal(missing.status, 404);
    assert.equal(ctx.sessions.active, 0, "a session that could not be seeded is closed");
    assert.equal((await post(`${srv.url}/seed_session`, { task_id: 3 })).status, 422);

    const metrics = await post(`${srv.url}/aggregate_metrics`, {
      verify_responses: [{ ...verified.json, _ng_task_index: 0, _ng_rollout_index: 0 }],
    });
    assert.equal(metrics.status, 200);
    assert.deepEqual(metrics.json.key_metrics, { "mean/reward": 0.5 });
  } finally {
    await srv.close();
  }
});

test("resources server: an episode the machinery failed answers verify with 502, never a reward; capacity is 503", async () => {
  const ctx = makeContext(
    servedOf(env, undefined as never, FIXTURE, tmp("rlenv-nemo-")),
    () => new SessionDouble({ status: "error", reason: "sandbox lost", reward: null, components: [], infra: true }),
    1,
  );
  const srv = await serveMount(nemoGymMount(ctx));
  try {
    const cookie = jar((await post(`${srv.url}/seed_session`, row)).setCookie);
    const full = await post(`${srv.url}/seed_session`, row);
    assert.equal(full.status, 503);
    assert.match(String(full.json.detail), /1 of 1 sessions/);
    const v = await post(`${srv.url}/verify`, { ...row, response: response("42") }, cookie);
    assert.equal(v.status, 502);
    assert.equal(v.json.reward, undefined);
    assert.match(String(v.json.detail), /infrastructure.*sandbox lost/);
    assert.deepEqual(ctx.errors, ["infra"], "capacity refusals of open() are the registry's to count");
  } finally {
    await srv.close();
  }
});

const tokens = (n: number) => ({ prompt_token_ids: [100 + n, 101 + n], token_ids: [200 + n, 201 + n], logprobs: [-0.25, -0.5] });
const script = [
  { ...callTool("put", { path: "greet.txt", text: "hello world\n" }), tokens: tokens(0) },
  { ...callTool("submit", { answer: "42" }), tokens: tokens(1) },
];

for (const api of ["chat_completions", "responses"] as const) {
  test(`/run (${api}): the whole rollout on the engine, each model call's tokens on its items, the reward runRollout gives`, async (t) => {
    const p = await processProvider();
    if ("skip" in p) return t.skip(p.skip);
    const policy = api === "responses" ? await startScriptedResponsesServer(script) : await startScriptedServer(script);
    const ctx = makeContext(servedOf(env, p.provider, FIXTURE, tmp("rlenv-nemo-run-")), () => {
      throw new Error("no sessions in /run");
    });
    const srv = await serveMount(nemoGymMount(ctx, { policy: { baseURL: policy.baseURL, api } }));
    try {
      const r = await post(`${srv.url}/run`, { ...row, _ng_task_index: 0, _ng_rollout_index: 1 });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.json.reward, 1);
      assert.deepEqual(r.json.reward_components, { "hidden-check": 1, answer: 1 });
      assert.equal(r.json._ng_rollout_index, 1, "the row's fields come back");
      const out = (r.json.response as { output: Array<Record<string, unknown>> }).output;
      assert.deepEqual(
        out.map((o) => `${o.type}${o.name ? `:${o.name}` : ""}`),
        ["function_call:put", "function_call_output", "function_call:submit", "function_call_output"],
      );
      for (const [i, item] of [out[0], out[2]].entries()) {
        assert.deepEqual(item?.prompt_token_ids, tokens(i).prompt_token_ids);
        assert.deepEqual(item?.generation_token_ids, tokens(i).token_ids);
        assert.deepEqual(item?.generation_log_probs, tokens(i).logprobs);
      }
      assert.equal(out[1]?.call_id, out[0]?.call_id);
      assert.match(String(out[1]?.output), /wrote greet.txt/);
      const rl = r.json.rlenv as { trajectory: string; status: string };
      assert.ok(existsSync(rl.trajectory));
      const evs = events(rl.trajectory);
      assert.equal(ofType(evs, "reward")[0]?.total, 1, "the trajectory holds the same reward");
      if (api === "responses") {
        const second = (policy.requests[1] as { input: Array<Record<string, unknown>> }).input;
        const replayed = second.find((i) => i.type === "function_call");
        assert.deepEqual(replayed?.generation_token_ids, tokens(0).token_ids, "a reply's items go back with their token ids");
      }
    } finally {
      await srv.close();
      await policy.close();
      await p.provider.shutdown();
    }
  });
}

test("/run: a policy server that is down is a 502 and an infra error in the trajectory, never a reward; bad rows are 422", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  const dead = await startScriptedServer([{ reset: true }]);
  const ctx = makeContext(servedOf(env, p.provider, FIXTURE, tmp("rlenv-nemo-run-")), () => {
    throw new Error("no sessions in /run");
  });
  const srv = await serveMount(nemoGymMount(ctx));
  try {
    const r = await post(`${srv.url}/run`, { ...row, model_server: { base_url: dead.baseURL, api: "chat_completions" } });
    assert.equal(r.status, 502, JSON.stringify(r.json));
    assert.equal(r.json.reward, undefined);
    const file = /trajectory (\S+)\)/.exec(String(r.json.detail))?.[1];
    assert.ok(file && existsSync(file));
    const end = ofType(events(file), "end")[0];
    assert.equal(end?.status, "error");
    assert.ok(
      ofType(events(file), "error").some((e) => e.infra),
      "the trajectory says infra",
    );

    const noPolicy = await post(`${srv.url}/run`, row);
    assert.equal(noPolicy.status, 422);
    assert.deepEqual((noPolicy.json.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "model_server"]);
    const noTask = await post(`${srv.url}/run`, { ...row, task_id: "nope", model_server: { base_url: dead.baseURL } });
    assert.equal(noTask.status, 404);
    const noParams = await post(`${srv.url}/run`, { task_id: "via-tool-calls" });
    assert.equal(noParams.status, 422);
  } finally {
    await srv.close();
    await dead.close();
    await p.provider.shutdown();
  }
});

test("/v1/responses: the model ↔ tools loop on a seeded session, tokens on each call's items; then /verify scores it", async () => {
  const policy = await startScriptedServer(script);
  const made: SessionDouble[] = [];
  const ctx = makeContext(servedOf(env, undefined as never, FIXTURE, tmp("rlenv-nemo-")), () => {
    const s = new SessionDouble(scored);
    made.push(s);
    return s;
  });
  const srv = await serveMount(nemoGymMount(ctx, { policy: { baseURL: policy.baseURL, api: "chat_completions" } }));
  try {
    const cookie = jar((await post(`${srv.url}/seed_session`, row)).setCookie);
    assert.equal((await post(`${srv.url}/v1/responses`, row.responses_create_params)).status, 400, "no cookie, no session");
    const r = await post(`${srv.url}/v1/responses`, row.responses_create_params, cookie);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.object, "response");
    const out = r.json.output as Array<Record<string, unknown>>;
    assert.deepEqual(
      out.map((o) => o.type),
      ["function_call", "function_call_output", "function_call", "function_call_output"],
    );
    assert.deepEqual(out[2]?.generation_token_ids, tokens(1).token_ids);
    assert.deepEqual(
      made[0]?.calls.map((c) => c[0]?.name),
      ["put", "submit"],
    );
    assert.equal(policy.requests[0]?.messages.at(-1)?.content, "do it", "the seeded task's prompt");
    const v = await post(`${srv.url}/verify`, { ...row, response: r.json }, cookie);
    assert.equal(v.status, 200);
    assert.equal(v.json.reward, 0.5);
  } finally {
    await srv.close();
    await policy.close();
  }
});
