// NeMo Gym's wire shapes, piece by piece: the session cookie (Starlette + itsdangerous), the
// pydantic-style 422s, /aggregate_metrics' numbers, the output items and their token fields, the
// row's task, and the Responses API policy's reading of a NeMo Gym model server's reply.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { replyOfResponse, toResponsesInput } from "../../../../src/core/policy/openai-responses";
import { aggregateMetrics } from "../../../../src/core/serve/nemo-gym/aggregate-metrics";
import { NemoHttpError, toHttpError } from "../../../../src/core/serve/nemo-gym/http-errors";
import { parseAggregateRequest, parseRunRequest, parseVerifyRequest } from "../../../../src/core/serve/nemo-gym/request-bodies";
import { finalText, modelCallItems, rewardComponents } from "../../../../src/core/serve/nemo-gym/response-build";
import { policyTargetOfRow, resetOfRow, samplingOf } from "../../../../src/core/serve/nemo-gym/row-fields";
import { cookieValue, SessionCookie, SessionSigner } from "../../../../src/core/serve/nemo-gym/session-cookie";
import { ServeError } from "../../../../src/core/serve/session-types";

const req = (cookie?: string) => ({ headers: cookie ? { cookie } : {} }) as IncomingMessage;

test("the session cookie is Starlette's: itsdangerous' TimestampSigner over base64 JSON, read back only when signed by this server", () => {
  // Made with itsdangerous 2.x: TimestampSigner("fixed-secret") at t=1764950400 over b64encode(json.dumps({"session_id": "abc-123"})).
  const signer = new SessionSigner("fixed-secret");
  const payload = Buffer.from('{"session_id": "abc-123"}').toString("base64");
  assert.equal(signer.sign(payload, 1764950400), "eyJzZXNzaW9uX2lkIjogImFiYy0xMjMifQ==.aTMBgA.7BXwkMyOkTbOZOlB5Bny7_RAmLQ");
  assert.equal(signer.unsign("eyJzZXNzaW9uX2lkIjogImFiYy0xMjMifQ==.aTMBgA.7BXwkMyOkTbOZOlB5Bny7_RAmLQ", 60, 1764950401), payload);
  assert.equal(
    signer.unsign("eyJzZXNzaW9uX2lkIjogImFiYy0xMjMifQ==.aTMBgA.7BXwkMyOkTbOZOlB5Bny7_RAmLQ", 60, 1764950400 + 61),
    undefined,
    "past max_age",
  );
  assert.equal(
    signer.unsign("eyJzZXNzaW9uX2lkIjogImFiYy0xMjQifQ==.aTMBgA.7BXwkMyOkTbOZOlB5Bny7_RAmLQ", 60, 1764950401),
    undefined,
    "tampered value",
  );

  const cookie = new SessionCookie();
  const header = cookie.header("sess-1");
  assert.match(
    header,
    /^RlenvResourcesServer___rlenv_serve=[A-Za-z0-9+/=]+\.[\w-]+\.[\w-]+; path=\/; Max-Age=1209600; httponly; samesite=lax$/,
  );
  const value = header.slice(header.indexOf("=") + 1, header.indexOf(";"));
  assert.equal(cookie.read(req(`other=1; ${cookie.name}=${value}`)), "sess-1");
  assert.equal(cookie.read(req(`${cookie.name}="${value}"`)), "sess-1", "a quoted value, as http.cookies may send it");
  assert.equal(new SessionCookie().read(req(`${cookie.name}=${value}`)), undefined, "another server's key does not read it");
  assert.equal(cookie.read(req()), undefined);
  assert.equal(cookieValue("a=1; b=2", "b"), "2");
});

test("malformed bodies are pydantic's 422s naming the field, under body", () => {
  const issues = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof NemoHttpError);
      assert.equal(e.status, 422);
      return (e.detail as Array<{ type: string; loc: unknown[] }>).map((d) => [d.type, d.loc.join(".")]);
    }
    assert.fail("no error");
  };
  assert.deepEqual(
    issues(() => parseRunRequest({ task_id: "x" })),
    [["missing", "body.responses_create_params"]],
  );
  assert.deepEqual(
    issues(() => parseRunRequest({ responses_create_params: { input: 3, tempreature: 1 } })),
    [
      ["list_type", "body.responses_create_params.input"],
      ["extra_forbidden", "body.responses_create_params.tempreature"],
    ],
  );
  assert.deepEqual(
    issues(() => parseRunRequest({ responses_create_params: { input: "hi" }, task_id: 7, model_server: { api: "grpc" } })),
    [
      ["string_type", "body.task_id"],
      ["missing", "body.model_server.base_url"],
      ["literal_error", "body.model_server.api"],
    ],
  );
  const ok = { responses_create_params: { input: "hi" } };
  assert.deepEqual(
    issues(() => parseVerifyRequest(ok)),
    [["missing", "body.response"]],
  );
  const response = {
    id: "r",
    created_at: 1,
    model: "m",
    object: "response",
    output: [{ role: "assistant" }],
    parallel_tool_calls: true,
    tools: [],
  };
  assert.deepEqual(
    issues(() => parseVerifyRequest({ ...ok, response })),
    [
      ["missing", "body.response.tool_choice"],
      ["value_error", "body.response.output.0"],
    ],
  );
  assert.deepEqual(
    issues(() => parseAggregateRequest({ verify_responses: [1] })),
    [["dict_type", "body.verify_responses.0"]],
  );
  assert.equal(parseRunRequest({ ...ok, expected_answer: "42" }).expected_answer, "42", "a row keeps its own fields");
});

test("serve errors map to NeMo Gym statuses with a detail", () => {
  assert.equal(toHttpError(new ServeError("capacity", "full", undefined, { active: 2, max: 2 })).status, 503);
  assert.match(String(toHttpError(new ServeError("capacity", "full", undefined, { active: 2, max: 2 })).detail), /2 of 2 sessions/);
  assert.equal(toHttpError(new ServeError("not_found", "no task x")).status, 404);
  assert.equal(toHttpError(new ServeError("infra", "sandbox lost")).status, 502);
  const invalid = toHttpError(new ServeError("invalid", "bad seed", "seed"));
  assert.equal(invalid.status, 422);
  assert.deepEqual((invalid.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "seed"]);
});

test("aggregate_metrics: per-task and overall mean/max/min/median/std of every numeric field, as NeMo Gym's RewardProfiler gives them", () => {
  const m = aggregateMetrics([
    { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, resolved: true, response: { usage: { input_tokens: 10, output_tokens: 4 } } },
    { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, resolved: false, response: { usage: { input_tokens: 20, output_tokens: 6 } } },
    { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0.5, response: {} },
  ]);
  const [t0, t1] = m.group_level_metrics;
  assert.equal(t0?._ng_task_index, 0);
  assert.equal(t0?.["mean/reward"], 0.5);
  assert.equal(t0?.["std/reward"], Math.SQRT1_2, "sample std (ddof=1)");
  assert.equal(t0?.["median/input_tokens"], 15);
  assert.equal(t0?.num_rollouts, 2);
  assert.deepEqual(
    (t0!.rollout_infos as Array<{ rollout_id: string }>).map((r) => r.rollout_id),
    ["0:0", "0:1"],
  );
  assert.equal(t1?.["std/reward"], 0, "one rollout: std 0 for a column without gaps");
  assert.equal(t1?.["mean/resolved"], undefined, "a column the task lacks is left out");
  assert.equal(m.agent_metrics["mean/reward"], 0.5);
  assert.equal(m.agent_metrics["max/resolved"], 1);
  assert.deepEqual(Object.keys(m.key_metrics).sort(), ["mean/input_tokens", "mean/output_tokens", "mean/resolved", "mean/reward"]);
  assert.deepEqual(aggregateMetrics([]), { group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  assert.throws(() => aggregateMetrics([{ reward: 1 }, { reward: 0 }]), /Duplicate result row for rollout key \(0, 0\)/);
});

test("a model call's items carry its tokens on the last item only; final text and reward components", () => {
  const tokens = { capture: "server" as const, promptIds: [1, 2], completionIds: [3, 4], logprobs: [-0.1, -0.2] };
  const items = modelCallItems(
    "let me look",
    [
      { id: "c1", name: "show", arguments: "{}" },
      { id: "c2", name: "put", arguments: '{"a":1}' },
    ],
    tokens,
  );
  assert.deepEqual(
    items.map((i) => i.type),
    ["message", "function_call", "function_call"],
  );
  assert.deepEqual(
    items.map((i) => "generation_token_ids" in i),
    [false, false, true],
  );
  assert.deepEqual(items[2]?.prompt_token_ids, [1, 2]);
  assert.deepEqual(items[2]?.generation_log_probs, [-0.1, -0.2]);
  assert.equal(
    "prompt_token_ids" in (modelCallItems("x", [], { capture: "server", promptIds: [1], completionIds: [2] })[0] ?? {}),
    false,
    "no logprobs: no mixin",
  );
  assert.equal(finalText([{ type: "message", role: "assistant", content: [{ type: "output_text", text: "42" }] }]), "42");
  assert.equal(finalText([{ type: "function_call", name: "x" }]), null);
  assert.deepEqual(
    rewardComponents([
      { name: "a", type: "exact", weight: 1, score: 1 },
      { name: "a", type: "tests", weight: 1, score: 0 },
    ]),
    { a: 1, "a#2": 0 },
  );
});

test("a row names its task by task_id (else instance_id, problem_id), else by seed or _ng_task_index; its model server and sampling", () => {
  assert.deepEqual(resetOfRow({ environment: "e", task_id: "t1", seed: 3 }), { environment: "e", task_id: "t1" });
  assert.deepEqual(resetOfRow({ instance_id: "i9" }), { task_id: "i9" });
  assert.deepEqual(resetOfRow({ _ng_task_index: 4 }), { seed: 4 });
  assert.deepEqual(resetOfRow({ seed: 2, _ng_task_index: 4 }), { seed: 2 });
  assert.throws(
    () => policyTargetOfRow({}, undefined),
    (e: NemoHttpError) => e.status === 422 && JSON.stringify(e.detail).includes("model_server"),
  );
  const target = policyTargetOfRow({ model_server: { base_url: "http://h/v1", api: "responses" } }, undefined);
  assert.deepEqual(target, { baseURL: "http://h/v1", api: "responses" });
  assert.deepEqual(samplingOf({ input: "x", model: "m", temperature: 0.7, metadata: { extra_body: '{"seed": 3}' } }, target), {
    model: "m",
    temperature: 0.7,
    seed: 3,
  });
  assert.throws(() => samplingOf({ input: "x" }, target), /model/);
});

test("the Responses policy sends the conversation as input items, replays a reply's own items, and reads TokenIDLogProbMixin tokens", () => {
  const held = [[{ type: "function_call", call_id: "c1", name: "show", arguments: "{}", generation_token_ids: [9] }]];
  const input = toResponsesInput(
    [
      { role: "system", content: "sys" },
      { role: "user", content: "do it" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", name: "show", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "file text" },
    ],
    held,
  );
  assert.deepEqual(input, [
    { type: "message", role: "system", content: "sys" },
    { type: "message", role: "user", content: "do it" },
    held[0]?.[0],
    { type: "function_call_output", call_id: "c1", output: "file text" },
  ]);
  const reply = replyOfResponse(
    {
      model: "m",
      output: [
        { type: "reasoning", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
        {
          type: "function_call",
          call_id: "k",
          name: "submit",
          arguments: '{"answer":"42"}',
          prompt_token_ids: [1],
          generation_token_ids: [2, 3],
          generation_log_probs: [-1, -2],
        },
      ],
      usage: { input_tokens: 5, output_tokens: 2 },
    },
    "here",
  );
  assert.equal(reply.content, "done");
  assert.deepEqual(reply.tool_calls, [{ id: "k", name: "submit", arguments: '{"answer":"42"}' }]);
  assert.deepEqual(reply.usage, { prompt_tokens: 5, completion_tokens: 2 });
  assert.deepEqual(reply.tokens, {
    capture: "server",
    promptIds: [1],
    completionIds: [2, 3],
    logprobs: [-1, -2],
    finishReason: "tool_calls",
    model: "m",
  });
  assert.throws(() => replyOfResponse({ choices: [] }, "here"), /no output array/);
});
