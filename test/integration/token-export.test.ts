import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { parquetReadObjects } from "hyparquet";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import type { MessageEvent } from "../../src/core/schema/trajectory";
import { readTurnTokens } from "../../src/core/tokens/codec";
import { rlenv } from "../support/cli";
import { fakeLogprob, qwenDecode, qwenTokens } from "../support/qwen-tokens";
import { type ScriptedServer, type ScriptStep, startScriptedServer } from "../support/scripted-openai-server";
import { events, fixtureEnv, ofType, processProvider, tmp } from "./rollout-helpers";

type Reply = Extract<ScriptStep, { reply: unknown }>["reply"];
const write = (text: string): Reply => ({ content: null, tool_calls: [{ name: "put", arguments: { path: "greet.txt", text } }] });
const look: Reply = { content: "Checking.", tool_calls: [{ name: "show", arguments: { path: "greet.txt" } }] };
const submit: Reply = { content: null, tool_calls: [{ name: "submit", arguments: { answer: "42" } }] };
/** Per sample: 0, 1 and 3 solve the task, 2 writes the wrong greeting (reward below 1). */
const PLANS: Reply[][] = [
  [write("hello world\n"), look, submit],
  [write("hi\n"), write("hello world\n"), submit],
  [write("goodbye\n"), look, submit],
  [write("hello world\n"), submit],
];

let provider: SandboxProvider | undefined;
let skip: string | false = false;
let capture: ScriptedServer | undefined;
let plain: ScriptedServer | undefined;
let runDir = "";

before(async () => {
  const p = await processProvider();
  if ("skip" in p) {
    skip = p.skip;
    return;
  }
  provider = p.provider;
  // One vLLM-like Qwen3 server for samples 0–2 (the model name says which plan), one without capture for sample 3.
  const replyFor = (model: string | undefined, assistantTurns: number) => {
    const plan = PLANS[Number(model?.slice(-1))]!;
    return plan[Math.min(assistantTurns, plan.length - 1)]!;
  };
  const turnsOf = (messages: Array<{ role: string }>) => messages.filter((m) => m.role === "assistant").length;
  capture = await startScriptedServer((req) => {
    const reply = replyFor(req.model, turnsOf(req.messages));
    return { reply, tokens: qwenTokens(req, reply) };
  });
  plain = await startScriptedServer((req) => ({ reply: replyFor(req.model, turnsOf(req.messages)) }), { refuseTokenFields: true });
  const r = await runEnvironment({
    env: fixtureEnv(),
    config: { policy: { kind: "openai" }, tasks: ["via-tool-calls"], k: 4, concurrency: 2, sandbox: "process" },
    runsDir: tmp("rlenv-token-export-"),
    sandboxProvider: provider,
    policyFactory: ({ sample }) =>
      new OpenAIPolicy({ baseURL: (sample === 3 ? plain : capture)!.baseURL, model: `qwen3-s${sample}`, seed: 7 }),
  });
  runDir = r.runDir;
});
after(async () => {
  await capture?.close();
  await plain?.close();
  await provider?.shutdown();
});

interface Row {
  rollout_id: string;
  sample: number;
  group_id: string;
  reward: number;
  advantage: number;
  group_size: number;
  group_mean: number;
  group_std: number;
  input_ids: number[];
  loss_mask: number[];
  logprobs: number[];
  prompt_length: number;
  capture: string;
  drift_turns: number;
  reward_components: Record<string, number> | string;
}

const rolloutFile = (id: string) => path.join(runDir, "rollouts", `${id}.jsonl`);

test("rl-jsonl: token ids, mask over exactly the sampled tokens, their logprobs, and the group-normalised advantage", (t) => {
  if (skip) return t.skip(skip);
  const r = rlenv(["export", runDir, "--format", "rl-jsonl"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /exported 3 rollouts; 1 left out: their policy server returned no token ids/);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Row);
  assert.deepEqual(rows.map((x) => x.sample).sort(), [0, 1, 2]);
  const summary = JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8")) as { per_task: Array<{ n: number }> };
  assert.equal(summary.per_task[0]!.n, 4);
  // The group is all four scored rollouts, the one without tokens too: its reward counts in the mean.
  const rewards = [0, 1, 2, 3].map((s) => {
    const id = readdirRollout(s);
    return ofType(events(rolloutFile(id)), "end")[0]!.reward ?? 0;
  });
  const mean = rewards.reduce((a, b) => a + b, 0) / 4;
  const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / 3);
  assert.ok(std > 0, "the plans give the group different rewards");
  for (const row of rows) {
    assert.equal(row.group_size, 4);
    assert.ok(Math.abs(row.group_mean - mean) < 1e-12 && Math.abs(row.group_std - std) < 1e-12);
    assert.ok(Math.abs(row.advantage - (row.reward - mean) / (std + 1e-6)) < 1e-9);
    assert.equal(row.capture, "server");
    assert.equal(row.drift_turns, 0);
    const turns = ofType(events(rolloutFile(row.rollout_id)), "message").filter(
      (m): m is MessageEvent & { role: "assistant" } => m.role === "assistant",
    );
    const completions = turns.map((m) => readTurnTokens(m.tokens!).completionIds);
    // The mask covers exactly the sampled tokens, in order, and the logprobs sit on them.
    assert.equal(row.input_ids.length, row.loss_mask.length);
    assert.equal(row.input_ids.length, row.logprobs.length);
    assert.deepEqual(
      row.input_ids.filter((_, i) => row.loss_mask[i] === 1),
      completions.flat(),
    );
    const wantLps = completions.flatMap((c) => c.map((_, i) => Math.fround(fakeLogprob(i))));
    assert.deepEqual(
      row.logprobs.filter((_, i) => row.loss_mask[i] === 1),
      wantLps,
    );
    assert.ok(row.logprobs.every((lp, i) => row.loss_mask[i] === 1 || lp === 0));
    assert.equal(row.prompt_length, readTurnTokens(turns[0]!.tokens!).promptIds.length);
    // The sequence is the conversation as Qwen3 renders it: it decodes to the chat, ending on the last reply.
    const text = qwenDecode(row.input_ids);
    assert.ok(text.startsWith("<|im_start|>system\n") && text.endsWith("</tool_call><|im_end|>"), text.slice(-80));
  }
});

test("parquet: the same columns, read back by DuckDB and by hyparquet", async (t) => {
  if (skip) return t.skip(skip);
  const file = path.join(tmp("rlenv-pq-"), "run.parquet");
  const r = rlenv(["export", runDir, "--format", "parquet", "--out", file]);
  assert.equal(r.code, 0, r.stderr);
  const want = rlenv(["export", runDir, "--format", "rl-jsonl"])
    .stdout.trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Row);
  const db = await (await DuckDBInstance.create()).connect();
  const types = (await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
  const typeOf = Object.fromEntries(types.map((c) => [c.column_name as string, c.column_type as string]));
  assert.equal(typeOf.input_ids, "INTEGER[]");
  assert.equal(typeOf.loss_mask, "INTEGER[]");
  assert.equal(typeOf.logprobs, "FLOAT[]");
  assert.equal(typeOf.advantage, "DOUBLE");
  const duck = (
    await db.runAndReadAll(`SELECT * FROM read_parquet('${file}') ORDER BY rollout_id`)
  ).getRowObjectsJson() as unknown as Row[];
  const hyp = (await parquetReadObjects({ file: toArrayBuffer(readFileSync(file)) })) as unknown as Row[];
  assert.equal(duck.length, want.length);
  for (const [i, w] of [...want].sort((a, b) => (a.rollout_id < b.rollout_id ? -1 : 1)).entries()) {
    for (const got of [duck[i]!, hyp.find((h) => h.rollout_id === w.rollout_id)!]) {
      assert.equal(got.rollout_id, w.rollout_id);
      assert.deepEqual(got.input_ids.map(Number), w.input_ids);
      assert.deepEqual(got.loss_mask.map(Number), w.loss_mask);
      assert.deepEqual(got.logprobs.map(Number), w.logprobs);
      assert.equal(Number(got.advantage), w.advantage);
      assert.equal(Number(got.reward), w.reward);
      assert.equal(got.group_id, w.group_id);
      assert.deepEqual(JSON.parse(got.reward_components as string), w.reward_components);
    }
  }
});

test("trl: prompt and completion messages with the reward, every scored rollout (capture or not)", (t) => {
  if (skip) return t.skip(skip);
  const r = rlenv(["export", runDir, "--format", "trl"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { prompt: Array<{ role: string }>; completion: Array<{ role: string }>; reward: number });
  assert.equal(rows.length, 4);
  for (const row of rows) {
    assert.deepEqual(
      row.prompt.map((m) => m.role),
      ["system", "user"],
    );
    assert.equal(row.completion[0]!.role, "assistant");
    assert.equal(row.completion.at(-1)!.role, "assistant");
    assert.equal(typeof row.reward, "number");
  }
});

function readdirRollout(sample: number): string {
  const evs = (id: string) => ofType(events(rolloutFile(id)), "start")[0]!;
  const ids = readdirSync(path.join(runDir, "rollouts"))
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => f.slice(0, -6));
  const id = ids.find((i) => evs(i).sample === sample);
  if (!id) throw new Error(`no rollout for sample ${sample}`);
  return id;
}

const toArrayBuffer = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
