// Conformance of `rlenv serve` as NeMo Gym's resources and agent servers, against the real server
// (startServeServer, served sessions on the engine): a client written from NeMo Gym's SimpleAgent
// drives every shipped environment's oracle over the wire (its tool calls as a model's, cookies
// carried), on both backends, and the reward equals runRollout's with the oracle on the same task;
// /run against the scripted chat and Responses servers carries each model call's tokens; a policy
// server that is down is an error status, never a reward; malformed bodies are 422s naming the
// field and leave the session usable.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { runRollout } from "../../src/core/rollout/run-rollout";
import { nemoGymMount } from "../../src/core/serve/nemo-gym/nemo-gym-mount";
import type { ServePolicy } from "../../src/core/serve/serve-context";
import { startServeServer, type ServeServer } from "../../src/core/serve/serve-server";
import { blenderSandboxSkip } from "./scene3d-support";
import { backendSkip, REPO } from "./code-rollouts";
import { events, FIXTURE, ofType, tmp } from "./rollout-helpers";
import { NemoGymHttp, NoSandboxOverTheWire, playSimpleAgent } from "./serve-nemo-gym-client";
import { callTool, startScriptedServer } from "../support/scripted-openai-server";
import { startScriptedResponsesServer } from "../support/scripted-responses-server";

const SHIPPED = [
  "code-humaneval",
  "code-repo-bugfix",
  "code-stdio",
  "document-contract-review",
  "document-financebench",
  "scene3d-tabletop",
  "scene3d-blender",
];

async function serve(dir: string, backend: "process" | "docker", maxSessions = 8, policy?: ServePolicy): Promise<ServeServer> {
  return startServeServer({
    ...(policy ? { policy } : {}),
    dirs: [dir],
    port: 0,
    maxSessions,
    idleTimeoutMs: 0,
    backend,
    runsDir: tmp("rlenv-serve-nemo-runs-"),
    noBuild: true,
    protocols: [nemoGymMount],
  });
}

/** The reward `rlenv run --policy oracle` gives the task: runRollout on the server's own environment and provider. */
async function oracleReward(server: ServeServer, taskId: string): Promise<number | null> {
  const served = server.ctx.environments.get();
  const task = served.tasks.find((t) => t.id === taskId)!;
  const r = await runRollout({
    env: served.env,
    task,
    policy: new OraclePolicy(task.solution),
    sandboxProvider: served.provider,
    domain: served.domain,
    toolset: served.toolset,
    file: path.join(tmp("rlenv-serve-nemo-ref-"), "ref.jsonl"),
    runId: "reference",
    rolloutId: `ref-${taskId}`,
  });
  assert.equal(r.infra, false, `the reference rollout failed on the machinery: ${r.reason}`);
  return r.reward;
}

for (const backend of ["process", "docker"] as const) {
  describe(`NeMo Gym over rlenv serve: every shipped environment's oracle (${backend})`, () => {
    for (const name of SHIPPED) {
      test(name, async (t) => {
        const skip = (await backendSkip(backend)) || (name === "scene3d-blender" && blenderSandboxSkip(backend));
        if (skip) return t.skip(skip);
        const server = await serve(path.join(REPO, "environments", name), backend);
        try {
          const served = server.ctx.environments.get();
          // The first of the first three tasks the oracle scores above 0 (a 0 = 0 match would prove little).
          let task = served.tasks[0]!;
          let expected = await oracleReward(server, task.id);
          for (const next of served.tasks.slice(1, 3)) {
            if (expected !== null && expected > 0) break;
            task = next;
            expected = await oracleReward(server, task.id);
          }
          const http = new NemoGymHttp(server.url);
          const row = { responses_create_params: { input: [] }, task_id: task.id, _ng_task_index: 0, _ng_rollout_index: 0 };
          let run: Awaited<ReturnType<typeof playSimpleAgent>>;
          try {
            run = await playSimpleAgent(http, row, new OraclePolicy(task.solution));
          } catch (e) {
            if (e instanceof NoSandboxOverTheWire) return t.skip(`${task.id}: ${e.message}`);
            throw e;
          }
          assert.equal(run.verify.status, 200, run.verify.text);
          for (const r of run.toolReplies) assert.equal(r.status, 200, r.text);
          assert.equal(run.verify.json.reward, expected, "the served episode scores what runRollout scores");
          t.diagnostic(`${task.id}: reward ${expected} over NeMo Gym and from runRollout`);
          assert.equal(typeof run.verify.json.reward_components, "object");
          const rl = run.verify.json.rlenv as { trajectory: string };
          assert.ok(existsSync(rl.trajectory), "a trajectory for the served episode");
          assert.equal(ofType(events(rl.trajectory), "reward")[0]?.total, expected);
          assert.equal(server.ctx.sessions.active, 0, "verify closed the session");
          const metrics = await http.post("/aggregate_metrics", { verify_responses: [run.verify.json] });
          assert.equal(metrics.status, 200);
          assert.equal((metrics.json.key_metrics as Record<string, number>)["mean/reward"], expected);
        } finally {
          await server.close();
        }
      });
    }
  });
}

const tokens = (n: number) => ({ prompt_token_ids: [100 + n, 101 + n], token_ids: [200 + n, 201 + n], logprobs: [-0.25, -0.5] });
const script = [
  { ...callTool("put", { path: "greet.txt", text: "hello world\n" }), tokens: tokens(0) },
  { ...callTool("submit", { answer: "42" }), tokens: tokens(1) },
];
const row = { responses_create_params: { input: [], model: "policy" }, task_id: "via-tool-calls" };

describe("NeMo Gym agent server over rlenv serve (process backend, the rollout fixture)", () => {
  for (const api of ["chat_completions", "responses"] as const) {
    test(`/run (${api}): token ids and logprobs on each model call's items, the reward of the trajectory`, async () => {
      const policy = api === "responses" ? await startScriptedResponsesServer(script) : await startScriptedServer(script);
      const server = await serve(FIXTURE, "process");
      try {
        const http = new NemoGymHttp(server.url);
        const r = await http.post("/run", { ...row, model_server: { base_url: policy.baseURL, api } });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.reward, 1);
        const out = (r.json.response as { output: Array<Record<string, unknown>> }).output;
        const calls = out.filter((o) => o.type === "function_call");
        assert.equal(calls.length, 2);
        calls.forEach((c, i) => {
          assert.deepEqual(c.prompt_token_ids, tokens(i).prompt_token_ids);
          assert.deepEqual(c.generation_token_ids, tokens(i).token_ids);
          assert.deepEqual(c.generation_log_probs, tokens(i).logprobs);
        });
        const file = (r.json.rlenv as { trajectory: string }).trajectory;
        assert.ok(file.startsWith(server.ctx.environments.get().runDir), "the trajectory is in the served run folder");
        assert.equal(ofType(events(file), "reward")[0]?.total, 1);
      } finally {
        await server.close();
        await policy.close();
      }
    });
  }

  test("faults: a policy server that is down is a 502 (infra in the trajectory); malformed bodies are 422s; the session stays usable", async () => {
    const dead = await startScriptedServer([{ reset: true }]);
    const server = await serve(FIXTURE, "process");
    try {
      const http = new NemoGymHttp(server.url);
      const down = await http.post("/run", { ...row, model_server: { base_url: dead.baseURL } });
      assert.equal(down.status, 502, down.text);
      assert.equal(down.json.reward, undefined);
      const file = /trajectory (\S+)\)/.exec(String(down.json.detail))?.[1];
      assert.ok(file && existsSync(file));
      assert.ok(ofType(events(file), "error").some((e) => e.infra));

      const bad = await http.post("/run", { ...row, responses_create_params: { model: "m" } });
      assert.equal(bad.status, 422);
      assert.deepEqual((bad.json.detail as Array<{ loc: unknown[] }>)[0]?.loc, ["body", "responses_create_params", "input"]);

      const seeded = await http.post("/seed_session", row);
      assert.equal(seeded.status, 200, seeded.text);
      const notArgs = await http.post("/put", "[1, 2]");
      assert.equal(notArgs.status, 422);
      const put = await http.post("/put", { path: "greet.txt", text: "hello world\n" });
      assert.equal(put.status, 200, "the session is usable after a malformed call");
      assert.match(String(put.json.output), /wrote greet.txt/);
      const badVerify = await http.post("/verify", { ...row });
      assert.equal(badVerify.status, 422);
      const submit = await http.post("/submit", { answer: "42" });
      assert.equal(submit.json.done, true);
      const verify = await http.post("/verify", {
        ...row,
        response: {
          id: "r",
          created_at: 0,
          model: "m",
          object: "response",
          output: [],
          parallel_tool_calls: true,
          tool_choice: "auto",
          tools: [],
        },
      });
      assert.equal(verify.status, 200, verify.text);
      assert.equal(verify.json.reward, 1);
      assert.equal((await http.post("/put", { path: "x", text: "y" })).status, 400, "after verify the cookie names no session");
    } finally {
      await server.close();
      await dead.close();
    }
  });

  test("/v1/responses on a seeded session with the server's --policy-url, then /verify: the episode's reward, tokens on the items", async () => {
    const policy = await startScriptedServer(script);
    const server = await serve(FIXTURE, "process", 8, { baseURL: policy.baseURL, api: "chat_completions" });
    try {
      const http = new NemoGymHttp(server.url);
      assert.equal((await http.post("/seed_session", row)).status, 200);
      const r = await http.post("/v1/responses", row.responses_create_params);
      assert.equal(r.status, 200, r.text);
      const out = r.json.output as Array<Record<string, unknown>>;
      assert.deepEqual(
        out.map((o) => o.type),
        ["function_call", "function_call_output", "function_call", "function_call_output"],
      );
      assert.deepEqual(out[2]?.generation_token_ids, tokens(1).token_ids);
      const v = await http.post("/verify", { ...row, response: r.json });
      assert.equal(v.status, 200, v.text);
      assert.equal(v.json.reward, 1);
      assert.deepEqual(v.json.reward_components, { "hidden-check": 1, answer: 1 });
    } finally {
      await server.close();
      await policy.close();
    }
  });

  test("capacity: a seed_session past --max-sessions is 503 with the counts, never a hang", async () => {
    const server = await serve(FIXTURE, "process", 1);
    try {
      assert.equal((await new NemoGymHttp(server.url).post("/seed_session", row)).status, 200);
      const full = await new NemoGymHttp(server.url).post("/seed_session", row);
      assert.equal(full.status, 503);
      assert.match(String(full.json.detail), /1 of 1|capacity|max/i);
    } finally {
      await server.close();
    }
  });
});
