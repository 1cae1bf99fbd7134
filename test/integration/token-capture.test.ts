import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import type { MessageEvent } from "../../src/core/schema/trajectory";
import { readTurnTokens } from "../../src/core/tokens/codec";
import { qwenDecode, qwenTokens, sampledText } from "../support/qwen-tokens";
import { type ScriptedServerOptions, type ScriptStep, startScriptedServer } from "../support/scripted-openai-server";
import { events, fixtureEnv, ofType, processProvider, tmp } from "./rollout-helpers";

let provider: SandboxProvider | undefined;
let skip: string | false = false;
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else ({ provider } = p);
});
after(() => provider?.shutdown());

/** Five tool-calling turns that solve the fixture task: write, read, write again, read, submit. */
const REPLIES: Array<Extract<ScriptStep, { reply: unknown }>["reply"]> = [
  { content: "I will write the greeting first.", tool_calls: [{ name: "put", arguments: { path: "greet.txt", text: "hello\n" } }] },
  { content: null, tool_calls: [{ name: "show", arguments: { path: "greet.txt" } }] },
  { content: "It needs the second word.", tool_calls: [{ name: "put", arguments: { path: "greet.txt", text: "hello world\n" } }] },
  { content: null, tool_calls: [{ name: "show", arguments: { path: "greet.txt" } }] },
  { content: "Done.", tool_calls: [{ name: "submit", arguments: { answer: "42" } }] },
];

/** A vLLM-like server for Qwen3: real token ids for its text; `think`: it samples think blocks, as Qwen3 in thinking mode does. */
async function rollout(opts: { think?: boolean; stream?: boolean; server?: ScriptedServerOptions } = {}) {
  const server = await startScriptedServer((req, i) => {
    const reply = REPLIES[Math.min(i, REPLIES.length - 1)]!;
    return { reply, tokens: qwenTokens(req, reply, opts.think) };
  }, opts.server);
  try {
    const env = fixtureEnv();
    const file = path.join(tmp("rlenv-tokens-"), "r.jsonl");
    const policy = new OpenAIPolicy({ baseURL: server.baseURL, model: "qwen3", ...(opts.stream ? { stream: true } : {}) });
    const result = await runRollout({
      env,
      task: env.tasks[0]!,
      policy,
      sandboxProvider: provider!,
      file,
      runId: "r",
      rolloutId: "x",
    });
    const evs = events(file);
    const turns = ofType(evs, "message").filter((m): m is MessageEvent & { role: "assistant" } => m.role === "assistant");
    return { result, evs, turns, requests: server.requests };
  } finally {
    await server.close();
  }
}

for (const stream of [false, true]) {
  test(`chat mode${stream ? " (streamed)" : ""}: a 5-turn Qwen3 rollout records each turn's real ids and logprobs, no drift, mask = sampled`, async (t) => {
    if (skip) return t.skip(skip);
    const { result, evs, turns, requests } = await rollout({ stream });
    assert.equal(result.status, "completed");
    assert.equal(result.reward, 1);
    assert.equal(turns.length, 5);
    assert.ok(requests.every((r) => r.return_token_ids === true && r.logprobs === true));
    const sequence: number[] = [];
    const sampled: Array<[number, number]> = [];
    for (const [i, m] of turns.entries()) {
      const tk = m.tokens!;
      assert.equal(tk.capture, "server");
      assert.equal(tk.drift_at, undefined);
      assert.equal(tk.model, "qwen3");
      assert.equal(tk.prompt_offset, sequence.length, `turn ${i} continues the sequence`);
      const completion = readTurnTokens(tk).completionIds;
      // The ids are the ones a real Qwen3 tokenizer gives the text the server sampled, and decode back to it.
      assert.equal(qwenDecode(completion), sampledText(requests[i]!, REPLIES[i]!));
      assert.deepEqual(completion, qwenTokens(requests[i]!, REPLIES[i]!).token_ids);
      const lps = readTurnTokens(tk).logprobs!;
      assert.equal(lps.length, completion.length);
      const want = qwenTokens(requests[i]!, REPLIES[i]!).logprobs!;
      for (const [j, lp] of lps.entries()) assert.equal(lp, Math.fround(want[j]!), `logprob ${j} of turn ${i}`);
      assert.deepEqual(
        readTurnTokens(tk).promptIds.length + (tk.prompt_offset ?? 0),
        qwenTokens(requests[i]!, REPLIES[i]!).prompt_token_ids.length,
      );
      sequence.push(...readTurnTokens(tk).promptIds);
      sampled.push([sequence.length, sequence.length + completion.length]);
      sequence.push(...completion);
    }
    const end = ofType(evs, "end")[0]!;
    assert.deepEqual(end.tokens, { capture: "server", length: sequence.length, loss_mask: sampled, drift_turns: 0 });
    assert.equal(result.driftTurns, 0);
    // The mask covers exactly the sampled tokens: its ranges hold each turn's completion, and nothing else.
    const masked = end.tokens!.loss_mask.flatMap(([s, e]) => sequence.slice(s, e));
    assert.deepEqual(
      masked,
      turns.flatMap((m) => readTurnTokens(m.tokens!).completionIds),
    );
  });
}

test("chat mode: a server that re-renders and re-tokenises the chat drifts (Qwen3 drops past think blocks); each turn says where", async (t) => {
  if (skip) return t.skip(skip);
  const { result, evs, turns } = await rollout({ think: true });
  assert.equal(result.status, "completed");
  let sequence: number[] = [];
  for (const [i, m] of turns.entries()) {
    const tk = m.tokens!;
    const completion = readTurnTokens(tk).completionIds;
    assert.ok(qwenDecode(completion).startsWith("<think>\n\n</think>\n\n"), "sampled with its think block");
    if (i > 0) {
      // The previous turn's think block is gone from this prompt: it differs from the first sampled token on.
      assert.equal(tk.drift_at, sequence.length - readTurnTokens(turns[i - 1]!.tokens!).completionIds.length, `turn ${i}`);
      assert.equal(tk.prompt_offset, tk.drift_at);
    } else assert.equal(tk.drift_at, undefined);
    sequence = sequence.slice(0, tk.prompt_offset).concat(readTurnTokens(tk).promptIds, completion);
  }
  const end = ofType(evs, "end")[0]!;
  assert.equal(end.tokens!.drift_turns, 4);
  assert.equal(result.driftTurns, 4);
  // Only the last turn's sampled ids are still in the final sequence; the rewritten ones left the mask.
  assert.deepEqual(end.tokens!.loss_mask, [[sequence.length - readTurnTokens(turns[4]!.tokens!).completionIds.length, sequence.length]]);
});

test("chat mode: a server without capture (OpenAI's API refuses return_token_ids) still runs; each turn says capture is absent", async (t) => {
  if (skip) return t.skip(skip);
  const { result, evs, turns, requests } = await rollout({ server: { refuseTokenFields: true } });
  assert.equal(result.status, "completed");
  assert.equal(result.reward, 1);
  assert.ok(turns.every((m) => m.tokens?.capture === "absent" && m.tokens.packed === undefined && m.tokens.completion_ids === undefined));
  assert.equal(requests[0]!.return_token_ids, true, "asked once");
  assert.ok(
    requests.slice(1).every((r) => !("return_token_ids" in r)),
    "then never again",
  );
  assert.deepEqual(ofType(evs, "end")[0]!.tokens, { capture: "absent", length: 0, loss_mask: [], drift_turns: 0 });
});
