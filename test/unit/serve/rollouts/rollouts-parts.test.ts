// /v1/rollouts' pure parts: the request schema (errors name the field), GRPO's group advantage
// with infrastructure failures left out, and the token fields (loss mask) assembled from a trajectory.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RolloutResult } from "../../../../src/core/rollout/rollout-types";
import type { TrajectoryEvent } from "../../../../src/core/schema/trajectory";
import { groupAdvantages } from "../../../../src/core/serve/rollouts/advantage";
import { parseRolloutsRequest } from "../../../../src/core/serve/rollouts/request";
import { rolloutLine, scoredReward, tokenFields } from "../../../../src/core/serve/rollouts/rollout-line";
import { ServeError } from "../../../../src/core/serve/session-types";
import { TokenLedger } from "../../../../src/core/tokens/ledger";

const model = { base_url: "http://127.0.0.1:8000/v1", model: "qwen" };

function refused(body: unknown): ServeError {
  try {
    parseRolloutsRequest(body);
  } catch (e) {
    assert.ok(e instanceof ServeError, String(e));
    assert.equal(e.kind, "invalid");
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

test("a request: tasks or a count, defaults filled in", () => {
  const r = parseRolloutsRequest({ tasks: ["a", "b"], model, policy_version: 7 });
  assert.equal(r.group_size, 1);
  assert.equal(r.concurrency, 8);
  assert.equal(r.model.retries, 2);
  assert.deepEqual(r.sampling, {});
  assert.equal(r.policy_version, 7);
  const c = parseRolloutsRequest({ count: 3, group_size: 4, model, sampling: { temperature: 1, seed: 5 }, concurrency: 32 });
  assert.equal(c.count, 3);
  assert.equal(c.sampling.seed, 5);
});

test("a wrong request is refused with the field named", () => {
  assert.equal(refused({ model }).field, "tasks");
  assert.equal(refused({ tasks: ["a"], count: 2, model }).field, "count");
  assert.equal(refused({ tasks: ["a", ""], model }).field, "tasks[1]");
  assert.equal(refused({ tasks: ["a"], model: { ...model, base_url: "not a url" } }).field, "model.base_url");
  assert.equal(refused({ tasks: ["a"], model: { base_url: model.base_url } }).field, "model.model");
  assert.equal(refused({ tasks: ["a"], model, group_size: 0 }).field, "group_size");
  assert.equal(refused({ tasks: ["a"], model, sampling: { top_p: 2 } }).field, "sampling.top_p");
  const unknown = refused({ tasks: ["a"], model, temprature: 1 });
  assert.equal(unknown.field, "temprature");
  assert.match(unknown.message, /unknown field temprature/);
  assert.equal(refused({ count: 10_000, group_size: 1000, model }).field, "group_size");
});

test("group advantage: (r − mean) / (std + ε) over the scored members; unscored ones get none and do not count", () => {
  const { stats, advantages } = groupAdvantages([{ scored: 1 }, { scored: 0 }, { scored: null }, { scored: 0.5 }]);
  assert.equal(stats.n, 3);
  assert.equal(stats.mean, 0.5);
  assert.equal(stats.std, 0.5);
  assert.equal(advantages[2], null);
  assert.ok(Math.abs((advantages[0] ?? 0) - 0.5 / (0.5 + 1e-6)) < 1e-12);
  assert.ok(Math.abs((advantages[1] ?? 0) + 0.5 / (0.5 + 1e-6)) < 1e-12);
  assert.equal(advantages[3], 0);
  // All equal: 0 each, never NaN. Only infra failures: no statistics.
  assert.deepEqual(groupAdvantages([{ scored: 1 }, { scored: 1 }]).advantages, [0, 0]);
  assert.deepEqual(groupAdvantages([{ scored: null }]).advantages, [null]);
});

test("what counts as a sample: an infra failure or a cancellation is none; the agent's error is a 0", () => {
  assert.equal(scoredReward({ infra: true, status: "error", reward: null }), null);
  assert.equal(scoredReward({ infra: false, status: "cancelled", reward: null }), null);
  assert.equal(scoredReward({ infra: false, status: "error", reward: null }), 0);
  assert.equal(scoredReward({ infra: false, status: "completed", reward: 0.75 }), 0.75);
});

/** Assistant message events of two turns, written through the engine's own ledger. */
function tokenEvents(): TrajectoryEvent[] {
  const ledger = new TokenLedger();
  const msg = (turn: number, tokens: ReturnType<TokenLedger["record"]>): TrajectoryEvent => ({
    type: "message",
    seq: turn,
    t: turn,
    role: "assistant",
    content: "x",
    turn,
    tokens,
  });
  // Turn 0: prompt [1,2,3], sampled [10,11]; then a tool result [4,5] in the next prompt; turn 1 sampled [12].
  const t0 = ledger.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [10, 11], logprobs: [-0.5, -0.25] });
  const t1 = ledger.record({ capture: "server", promptIds: [1, 2, 3, 10, 11, 4, 5], completionIds: [12], logprobs: [-1] });
  return [msg(0, t0), msg(1, t1)];
}

test("the loss mask is 1 on sampled tokens and 0 on prompt and tool tokens; logprobs line up with the ids", () => {
  const f = tokenFields(tokenEvents());
  assert.deepEqual(f.token_ids, [1, 2, 3, 10, 11, 4, 5, 12]);
  assert.deepEqual(f.loss_mask, [0, 0, 0, 1, 1, 0, 0, 1]);
  assert.deepEqual(f.logprobs, [0, 0, 0, -0.5, -0.25, 0, 0, -1]);
  assert.equal(f.prompt_length, 3);
  assert.equal(f.capture, "server");
  const none = tokenFields([]);
  assert.equal(none.token_ids, null);
  assert.equal(none.capture, "absent");
});

test("a line carries the group, the status (infra_error for the machinery's), the spend and the provenance", () => {
  const result: RolloutResult = {
    rolloutId: "b-g0-s1",
    file: "/runs/x/rollouts/b-g0-s1.jsonl",
    task: "t",
    sample: 1,
    status: "error",
    reason: "policy server down",
    reward: null,
    infra: true,
    answer: undefined,
    turns: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    timings: { total_ms: 5, policy_ms: 5, sandbox_ms: 0, verify_ms: 0 },
    sandboxSeconds: 0.25,
    judge: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    rewardHash: "abcd",
  };
  const line = rolloutLine({
    result,
    events: tokenEvents(),
    environment: "env",
    groupId: "b-g0",
    groupIndex: 1,
    policyVersion: "step-3",
    advantage: null,
    group: { n: 1, mean: 1, std: 0, size: 2 },
  });
  assert.equal(line.status, "infra_error");
  assert.equal(line.reward, null);
  assert.equal(line.advantage, null);
  assert.deepEqual(line.group, { size: 2, scored: 1, mean: 1, std: 0 });
  assert.equal(line.policy_version, "step-3");
  assert.equal(line.sandbox_seconds, 0.25);
  assert.equal(line.reward_hash, "abcd");
  assert.equal(line.trajectory, result.file);
  assert.equal(line.token_ids?.length, line.loss_mask?.length);
});
