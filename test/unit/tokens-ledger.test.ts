import assert from "node:assert/strict";
import { test } from "node:test";
import { summarize } from "../../src/core/runs/summarize";
import { decodeIds, decodeLogprobs, encodeIds, encodeLogprobs, readTurnTokens } from "../../src/core/tokens/codec";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { tokensFromResponse } from "../../src/core/tokens/server-capture";

test("codec: ids and float32 logprobs round-trip exactly, at about 5.3 characters a value", () => {
  const ids = [0, 1, 151_645, 2 ** 32 - 1];
  assert.deepEqual(decodeIds(encodeIds(ids)), ids);
  const lps = [0, -0.5, Math.fround(-1e-7), -23.25]; // float32 values, as servers compute them
  assert.deepEqual(decodeLogprobs(encodeLogprobs(lps)), lps);
  assert.equal(encodeIds(new Array(300).fill(151_000)).length, 1600);
  assert.throws(() => decodeIds("AAA="), /uint32.*not a whole number/);
});

test("ledger: a prompt that continues the sequence stores only its new tokens; the mask is the sampled ranges", () => {
  const l = new TokenLedger();
  const t0 = l.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [10, 11], logprobs: [-0.1, -0.2] });
  assert.equal(t0.prompt_offset, 0);
  assert.deepEqual(readTurnTokens(t0).promptIds, [1, 2, 3]);
  const t1 = l.record({ capture: "server", promptIds: [1, 2, 3, 10, 11, 4, 5], completionIds: [12], finishReason: "stop" });
  assert.equal(t1.prompt_offset, 5);
  assert.deepEqual(readTurnTokens(t1).promptIds, [4, 5]);
  assert.equal(t1.drift_at, undefined);
  assert.equal(readTurnTokens(t1).logprobs, undefined);
  assert.equal(t1.finish_reason, "stop");
  assert.deepEqual(l.summary(), {
    capture: "server",
    length: 8,
    loss_mask: [
      [3, 5],
      [7, 8],
    ],
    drift_turns: 0,
  });
});

test("ledger: a prompt that rewrote sampled tokens is drift; where it starts is recorded, the rewritten tokens leave the mask", () => {
  const l = new TokenLedger();
  l.record({ capture: "server", promptIds: [1, 2], completionIds: [10, 11, 12] });
  // The server re-tokenised "10 11 12" as "10 99": drift at position 3.
  const t1 = l.record({ capture: "server", promptIds: [1, 2, 10, 99, 4], completionIds: [13] });
  assert.equal(t1.drift_at, 3);
  assert.equal(t1.prompt_offset, 3);
  assert.deepEqual(readTurnTokens(t1).promptIds, [99, 4]);
  assert.deepEqual(l.summary(), {
    capture: "server",
    length: 6,
    loss_mask: [
      [2, 3],
      [5, 6],
    ],
    drift_turns: 1,
  });
});

test("ledger: turns without capture say so; a mix is partial; no turn at all gives no summary", () => {
  assert.equal(new TokenLedger().summary(), undefined);
  const l = new TokenLedger();
  assert.deepEqual(l.record({ capture: "absent", model: "gpt" }), { capture: "absent", model: "gpt" });
  assert.equal(l.summary()?.capture, "absent");
  l.record({ capture: "server", promptIds: [1], completionIds: [2] });
  assert.equal(l.summary()?.capture, "partial");
});

test("server capture: vLLM's return_token_ids fields, ids spelt in logprob entries, and a response with none", () => {
  const vllm = tokensFromResponse(
    { model: "Qwen/Qwen3-8B", system_fingerprint: "rev-1", prompt_token_ids: [1, 2] },
    { finish_reason: "stop", token_ids: [5, 6], logprobs: { content: [{ logprob: -0.5 }, { logprob: -1 }] } },
  );
  assert.deepEqual(vllm, {
    capture: "server",
    promptIds: [1, 2],
    completionIds: [5, 6],
    logprobs: [-0.5, -1],
    finishReason: "stop",
    model: "Qwen/Qwen3-8B",
    revision: "rev-1",
  });
  const spelt = tokensFromResponse(
    { prompt_token_ids: [1] },
    {
      logprobs: {
        content: [
          { token: "token_id:7", logprob: -0.1 },
          { token_id: 8, logprob: -0.2 },
        ],
      },
    },
  );
  assert.deepEqual(spelt.completionIds, [7, 8]);
  // Logprobs that do not line up with the ids are left out rather than guessed.
  const short = tokensFromResponse({ prompt_token_ids: [1] }, { token_ids: [5, 6], logprobs: { content: [{ logprob: -0.5 }] } });
  assert.equal(short.logprobs, undefined);
  assert.deepEqual(
    tokensFromResponse({ model: "gpt-4o" }, { finish_reason: "stop", logprobs: { content: [{ token: "hi", logprob: -1 }] } }),
    {
      capture: "absent",
      finishReason: "stop",
      model: "gpt-4o",
    },
  );
});

test("summary: drifted turns and rollouts are counted over the rollouts that reported tokens", () => {
  const s = summarize("r", [
    { task: "a", sample: 0, status: "completed", reward: 1, driftTurns: 0 },
    { task: "a", sample: 1, status: "completed", reward: 0, driftTurns: 3 },
    { task: "b", sample: 0, status: "completed", reward: 1 },
  ]);
  assert.deepEqual(s.token_drift, { rollouts: 1, turns: 3, of_rollouts: 2 });
  assert.equal(summarize("r", [{ task: "a", sample: 0, status: "completed", reward: 1 }]).token_drift, undefined);
});
