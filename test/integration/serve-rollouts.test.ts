// POST /v1/rollouts against the real server (startServeServer, as `rlenv serve` starts it) with the
// real engine and sandboxes (process backend), and a scripted OpenAI-compatible model server that returns token ids and logprobs:
// lines stream as groups finish with every field right; a client that disconnects cancels its
// rollouts and leaves no sandbox; a model server that is down gives infra_error lines, never a reward.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { rolloutsMount } from "../../src/core/serve/rollouts/rollouts-mount";
import type { RolloutLine } from "../../src/core/serve/rollouts/rollout-line";
import { encodeMessage, logprobAt, rolloutsPolicyStep, taskOf } from "../support/rollouts-policy-script";
import { type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { type ServeServer, startServeServer } from "../../src/core/serve/serve-server";
import { FIXTURE, processProvider, tmp } from "./rollout-helpers";

let provider: SandboxProvider | undefined;
let skip: string | undefined;
let server: ServeServer;
let policy: ScriptedServer;
/** Tasks whose policy requests hang until the test releases them (the disconnect test). */
const hanging = new Set<string>();

before(async () => {
  // Whether this machine can isolate a process sandbox at all (the server's own provider is used below).
  const p = await processProvider();
  if ("skip" in p) {
    skip = p.skip;
    return;
  }
  await p.provider.shutdown();
  server = await startServeServer({
    dirs: [FIXTURE],
    port: 0,
    maxSessions: 8,
    idleTimeoutMs: 0,
    backend: "process",
    runsDir: tmp("rlenv-serve-runs-"),
    protocols: [rolloutsMount],
  });
  provider = served().provider;
  policy = await startScriptedServer((req) => (hanging.has(taskOf(req)) ? { hang: true } : rolloutsPolicyStep(req)));
});
after(async () => {
  await server?.close();
  await policy?.close();
});

const served = () => server.ctx.environments.list[0]!;

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/rollouts`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
    ...(signal ? { signal } : {}),
  });

/** The NDJSON reader a trainer would write: each line as it arrives. */
async function* lines(res: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      yield JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  }
  assert.equal(buf, "", "the stream ends on a whole line");
}

/** The sandboxes lent out and not yet closed (closed ones may stay warm for reuse). */
const lent = () => (provider as unknown as { lentIds: string[] }).lentIds;

const model = () => ({ base_url: `${policy.baseURL}`, model: "scripted", retries: 0 });

test("a batch streams one line per rollout with tokens, mask, logprobs, reward, advantage, spend and provenance", async (t) => {
  if (skip) return t.skip(skip);
  const res = await post({
    tasks: ["via-tool-calls", "via-files"],
    group_size: 2,
    model: model(),
    sampling: { temperature: 1, seed: 10 },
    policy_version: "step-7",
    concurrency: 4,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /application\/x-ndjson/);
  const got: Record<string, unknown>[] = [];
  for await (const l of lines(res)) got.push(l);
  const rollouts = got.filter((l) => l.type === "rollout") as unknown as RolloutLine[];
  const summary = got.at(-1)!;
  assert.equal(summary.type, "summary");
  assert.equal(rollouts.length, 4);
  assert.equal(summary.rollouts, 4);
  assert.deepEqual(summary.statuses, { completed: 4 });
  for (const groupId of new Set(rollouts.map((r) => r.group_id))) {
    const g = rollouts.filter((r) => r.group_id === groupId);
    assert.equal(g.length, 2);
    assert.deepEqual(g.map((r) => r.group_index).sort(), [0, 1]);
    // Seeds 10 + index: one even (answer 42, reward 1), one odd (41, 0.5) in each group.
    assert.deepEqual(g.map((r) => r.reward).sort(), [0.5, 1]);
    for (const r of g) {
      assert.equal(r.group.mean, 0.75);
      const expected = ((r.reward ?? 0) - 0.75) / (r.group.std + 1e-6);
      assert.ok(Math.abs((r.advantage ?? Number.NaN) - expected) < 1e-9);
    }
  }
  for (const r of rollouts) {
    assert.equal(r.status, "completed");
    assert.equal(r.policy_version, "step-7");
    assert.equal(r.reward_hash, served().rewardHash);
    assert.match(r.trajectory, new RegExp(`^${served().runDir}/rollouts/`));
    assert.deepEqual(
      r.reward_components.map((c) => c.name),
      ["hidden-check", "answer"],
    );
    assert.equal(r.capture, "server");
    assert.equal(r.drift_turns, 0);
    const ids = r.token_ids!;
    assert.equal(ids.length, r.loss_mask!.length);
    assert.equal(ids.length, r.logprobs!.length);
    // Sampled tokens are the toy tokenizer's assistant ids (≥ 1000): the mask is 1 exactly there.
    for (const [i, id] of ids.entries()) assert.equal(r.loss_mask![i], id >= 1000 ? 1 : 0, `position ${i}`);
    // Each turn's logprobs as sampled, 0 under the mask's zeros.
    let k = 0;
    ids.forEach((_, i) => {
      if (r.loss_mask![i] === 0) assert.equal(r.logprobs![i], 0);
      else {
        const prev = r.loss_mask![i - 1] ?? 0;
        if (prev === 0) k = 0;
        assert.ok(Math.abs(r.logprobs![i]! - logprobAt(k++)) < 1e-6);
      }
    });
    assert.equal(
      r.prompt_length,
      ids.findIndex((id) => id >= 1000),
    );
    assert.equal(r.usage.completion_tokens, r.loss_mask!.filter((x) => x === 1).length);
    assert.ok(r.usage.prompt_tokens > 0);
    assert.ok((r.sandbox_seconds ?? 0) > 0);
    assert.deepEqual(r.judge, { calls: 0, prompt_tokens: 0, completion_tokens: 0 });
    assert.ok(existsSync(r.trajectory));
    const events = readTrajectory(r.trajectory).events;
    const start = events[0];
    assert.ok(start?.type === "start");
    assert.equal(start.reward_hash, r.reward_hash);
    assert.equal(events.at(-1)?.type, "end");
  }
  // The first prompt token ids are the system message as the toy tokenizer writes it.
  const first = rollouts[0]!;
  const system = encodeMessage({ role: "system", content: `You are working in rollout-fixture on task ${first.task}.` });
  assert.deepEqual(first.token_ids!.slice(0, system.length), system);
  assert.ok((summary.policy_utilisation as number) > 0 && (summary.policy_utilisation as number) <= 1);
});

test("lines come as rollouts finish; a client that disconnects cancels the rest, and no sandbox is left", async (t) => {
  if (skip) return t.skip(skip);
  hanging.add("via-files");
  try {
    const ac = new AbortController();
    const res = await post({ tasks: ["via-tool-calls", "via-files"], model: model(), concurrency: 2 }, ac.signal);
    const it = lines(res);
    const firstLine = (await it.next()).value as RolloutLine;
    // Sent while the other rollout still waits on its model request.
    assert.equal(firstLine.task, "via-tool-calls");
    assert.equal(firstLine.status, "completed");
    assert.equal(firstLine.advantage, 0, "a group of one has advantage 0");
    ac.abort();
    await it.return(undefined).catch(() => {});
    // The server numbers its rollouts in the order they start: the other one is the next sample.
    const n = Number(/\.s(\d+)\.jsonl$/.exec(firstLine.trajectory)?.[1]);
    const cancelled = path.join(path.dirname(firstLine.trajectory), `via-files.s${n + 1}.jsonl`);
    // The cancelled rollout writes its end and lets go of its sandbox.
    for (let i = 0; i < 300; i++) {
      const end = existsSync(cancelled) ? readTrajectory(cancelled).events.findLast((e) => e.type === "end") : undefined;
      if (end && lent().length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const end = readTrajectory(cancelled).events.findLast((e) => e.type === "end");
    assert.equal(end?.type === "end" ? end.status : undefined, "cancelled");
    assert.deepEqual(lent(), [], "every sandbox handed back (closed ones may stay warm in the pool)");
  } finally {
    hanging.delete("via-files");
  }
});

test("a model server that is down: infra_error lines, no reward, no advantage, never counted in the group", async (t) => {
  if (skip) return t.skip(skip);
  const res = await post({
    tasks: ["via-tool-calls"],
    group_size: 2,
    model: { base_url: "http://127.0.0.1:9/v1", model: "m", retries: 0 },
  });
  const got: Record<string, unknown>[] = [];
  for await (const l of lines(res)) got.push(l);
  const rollouts = got.filter((l) => l.type === "rollout") as unknown as RolloutLine[];
  assert.equal(rollouts.length, 2);
  for (const r of rollouts) {
    assert.equal(r.status, "infra_error");
    assert.equal(r.reward, null);
    assert.equal(r.advantage, null);
    assert.equal(r.group.scored, 0);
    assert.match(r.reason ?? "", /policy|connect|ECONNREFUSED/i);
  }
  assert.deepEqual(got.at(-1)?.statuses, { infra_error: 2 });
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /rlenv_serve_errors_total\{protocol="rollouts",kind="infra"\} 2/);
});

test("a wrong request is refused before any rollout, with the field named", async (t) => {
  if (skip) return t.skip(skip);
  const bad = await post({ tasks: ["via-tool-calls"], model: { base_url: "nope", model: "m" } });
  assert.equal(bad.status, 400);
  assert.deepEqual(((await bad.json()) as { error: { field: string } }).error.field, "model.base_url");
  const unknown = await post({ tasks: ["via-tool-calls", "no-such-task"], model: model() });
  assert.equal(unknown.status, 404);
  const e = ((await unknown.json()) as { error: { kind: string; field: string; message: string } }).error;
  assert.equal(e.field, "tasks[1]");
  assert.match(e.message, /no-such-task/);
  const notJson = await fetch(`${server.url}/v1/rollouts`, { method: "POST", body: "{" });
  assert.equal(notJson.status, 400);
});
