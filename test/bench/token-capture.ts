/**
 * Token capture benchmark: `npx tsx test/bench/token-capture.ts [rollouts] [--before DIR]`.
 *
 * A loopback server answers as vLLM serving Qwen3 would: 512-token completions (real Qwen3 ids for
 * English text), 120 tokens of observation between turns (each turn its own text), 5 turns a rollout.
 * It runs in a process of its own with its replies serialised before the clock starts, so the figures
 * are the engine process's own work: the client's request and parse, reading the token fields, the
 * ledger (prefix check, drift, mask) and writing the event.
 * Three modes run interleaved in the same process, turn by turn (one rollout of each stepped together):
 *   - plain: a server without token fields (capture absent);
 *   - capture: the same replies with prompt_token_ids, token_ids and logprobs;
 *   - tokens: token-in/token-out against a completions endpoint (the Qwen3 template renders each
 *     turn's new messages, the tokenizer encodes them, the reply is decoded and its tool call parsed).
 *     Its requests go over node:http where chat mode's go through the OpenAI SDK (fetch): the turn's
 *     figure against plain includes that difference, so the template, tokeniser, decode and parse work
 *     is also printed on its own (the "render + tokenise" line).
 * With `--before DIR` (a checkout of an earlier commit: `git worktree add DIR COMMIT`, then
 * `ln -s "$PWD/node_modules" DIR/node_modules` so its imports resolve), that build's
 * token-in/token-out policy runs as a fourth mode in the same rounds: a before and after in one run.
 * Figures: ms per turn added by capture and by token-in/token-out (goal < 1), as a ratio to the plain turn, and trajectory
 * bytes per 1,000 sampled tokens in capture mode (goal < 12 KB). The per-turn cost is the process's
 * CPU time (user + system) over the turn, which other programs on a shared machine disturb less than
 * the wall clock; the wall clock is printed beside it. Prints figures; asserts nothing.
 */
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import type { ChatMessage } from "../../src/core/policy/types";
import { TrajectoryWriter } from "../../src/core/rollout/trajectory-writer";
import { TokenInOutPolicy } from "../../src/core/policy/openai-tokens";
import { ChatTokenizer } from "../../src/core/tokens/chat-template";
import { hermesParser, type ToolCallParser } from "../../src/core/tokens/tool-call-parsers";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { QWEN3_DIR, qwenDecode, qwenEncode } from "../support/qwen-tokens";
import { sampledLogprobs } from "../support/sampled-logprobs";

const args = process.argv.slice(2);
const beforeAt = args.indexOf("--before");
/** A checkout of an earlier commit: its token-in/token-out policy runs as a fourth mode, for a before and after in one run. */
const BEFORE = beforeAt >= 0 ? path.resolve(args.splice(beforeAt, 2)[1] ?? "") : undefined;
const ROLLOUTS = Number(args[0] ?? 40);
const TURNS = 5;
const COMPLETION = 512;
const OBSERVATION = 120;

// Real prose (this repository's docs), each turn its own slice: a repeated phrase would let the codec
// compress ids to nothing and flatter the bytes figure. Logprobs as a vLLM sampler computes them (float32
// log_softmax of bf16 logits), not a periodic made-up list, for the same reason.
const docs = path.join(__dirname, "..", "..", "docs");
const corpus = qwenEncode(
  readdirSync(docs)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => readFileSync(path.join(docs, f), "utf8"))
    .join("\n"),
);
const turnIds = (t: number) => corpus.slice(t * (COMPLETION + OBSERVATION), t * (COMPLETION + OBSERVATION) + COMPLETION);
const completionIdsOf = Array.from({ length: TURNS }, (_, t) => turnIds(t));
const completionTextOf = completionIdsOf.map((ids) => qwenDecode(ids));
const observationIdsOf = Array.from({ length: TURNS }, (_, t) =>
  corpus.slice(t * (COMPLETION + OBSERVATION) + COMPLETION, (t + 1) * (COMPLETION + OBSERVATION)),
);
const systemIds = corpus.slice(TURNS * (COMPLETION + OBSERVATION), TURNS * (COMPLETION + OBSERVATION) + 300);
const logprobsOf = Array.from({ length: TURNS }, (_, t) => sampledLogprobs(1024, t + 1));

/** The reply bodies of one rollout's turns, with and without token fields. */
function bodies(capture: boolean): string[] {
  const out: string[] = [];
  let prompt = systemIds;
  for (let t = 0; t < TURNS; t++) {
    const last = t === TURNS - 1;
    const choice = {
      index: 0,
      finish_reason: last ? "stop" : "tool_calls",
      message: {
        role: "assistant",
        content: completionTextOf[t],
        ...(last ? {} : { tool_calls: [{ id: `c${t}`, type: "function", function: { name: "show", arguments: '{"path":"a.txt"}' } }] }),
      },
      ...(capture
        ? {
            token_ids: completionIdsOf[t],
            logprobs: {
              // Each entry as vLLM writes it: the token's text, its logprob, its UTF-8 bytes, no alternatives.
              content: (completionIdsOf[t] ?? []).map((id, i) => {
                const token = qwenDecode([id]);
                return { token, logprob: logprobsOf[t]?.[i], bytes: [...Buffer.from(token)], top_logprobs: [] };
              }),
            },
          }
        : {}),
    };
    out.push(
      JSON.stringify({
        id: `x${t}`,
        object: "chat.completion",
        created: 0,
        model: "qwen3",
        choices: [choice],
        usage: { prompt_tokens: prompt.length, completion_tokens: COMPLETION, total_tokens: prompt.length + COMPLETION },
        ...(capture ? { prompt_token_ids: prompt } : {}),
      }),
    );
    prompt = prompt.concat(completionIdsOf[t] ?? [], observationIdsOf[t] ?? []);
  }
  return out;
}

/** The completions endpoint's replies: the same text, then a Hermes tool call, as Qwen3 samples it. */
function completionBodies(): string[] {
  return Array.from({ length: TURNS }, (_, t) => {
    const call = t === TURNS - 1 ? "" : '\n<tool_call>\n{"name": "show", "arguments": {"path": "a.txt"}}\n</tool_call>';
    const text = `${completionTextOf[t]}${call}<|im_end|>`;
    const ids = qwenEncode(text);
    const lps = logprobsOf[t] ?? [];
    return JSON.stringify({
      id: `c${t}`,
      object: "text_completion",
      model: "qwen3",
      choices: [{ index: 0, text, finish_reason: "stop", token_ids: ids, logprobs: { token_logprobs: ids.map((_, i) => lps[i]) } }],
    });
  });
}

async function main() {
  const replies = { plain: bodies(false), capture: bodies(true), tokens: completionBodies(), before: completionBodies() };
  const tokenizer = new ChatTokenizer(QWEN3_DIR);
  // The work the issue names for token-in/token-out (render the new messages with the template,
  // tokenise them, decode the reply, parse its tool calls), timed apart from the HTTP round trip.
  let textCpu = 0;
  const timed =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      const c0 = process.cpuUsage();
      try {
        return f(...a);
      } finally {
        const c = process.cpuUsage(c0);
        textCpu += (c.user + c.system) / 1000;
      }
    };
  tokenizer.firstPrompt = timed(tokenizer.firstPrompt.bind(tokenizer));
  tokenizer.continuation = timed(tokenizer.continuation.bind(tokenizer));
  tokenizer.decode = timed(tokenizer.decode.bind(tokenizer));
  const parser: ToolCallParser = { name: hermesParser.name, parse: timed(hermesParser.parse.bind(hermesParser)) };
  const server = fork(path.join(__dirname, "token-capture-server.ts"));
  server.send(replies);
  const port = await new Promise<number>((r) => server.once("message", (m) => r(m as number)));
  const load0 = loadavg()[0] as number;
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-tokens-"));
  const ms = { plain: [] as number[], capture: [] as number[], tokens: [] as number[], before: [] as number[] };
  const cpu = { plain: [] as number[], capture: [] as number[], tokens: [] as number[], before: [] as number[] };
  const bytes = { plain: 0, capture: 0, tokens: 0, before: 0 };
  const split = () => ({ policy: [] as number[], ledger: [] as number[] });
  const parts = { plain: split(), capture: split(), tokens: split(), before: split() };
  const signal = new AbortController().signal;
  const observationOf = observationIdsOf.map((ids) => qwenDecode(ids));

  type Mode = keyof typeof replies;
  const MODES: Mode[] = BEFORE ? ["plain", "capture", "tokens", "before"] : ["plain", "capture", "tokens"];
  // The earlier build's own policy and tokenizer, loaded from its tree (tsx compiles it as it does this one).
  const before = BEFORE
    ? {
        Policy: (require(path.join(BEFORE, "src/core/policy/openai-tokens")) as { TokenInOutPolicy: typeof TokenInOutPolicy })
          .TokenInOutPolicy,
        tokenizer: new (
          require(path.join(BEFORE, "src/core/tokens/chat-template")) as { ChatTokenizer: typeof ChatTokenizer }
        ).ChatTokenizer(QWEN3_DIR),
      }
    : undefined;

  async function start(m: Mode, i: number) {
    const baseURL = `http://127.0.0.1:${port}/${m}/${i}/v1`;
    const policy =
      m === "tokens"
        ? new TokenInOutPolicy({ baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer, parser })
        : m === "before" && before
          ? new before.Policy({ baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer: before.tokenizer })
          : new OpenAIPolicy({ baseURL, model: "qwen3", capture: m === "capture" });
    const file = path.join(dir, `${m}-${i}.jsonl`);
    const writer = await TrajectoryWriter.create(file);
    const messages: ChatMessage[] = [{ role: "user", content: "Fix the parser." }];
    return { m, policy, file, writer, ledger: new TokenLedger(), messages };
  }
  const tools = [{ name: "show", description: "Print a file.", parameters: { type: "object", properties: { path: { type: "string" } } } }];

  /** One turn of one rollout: the policy's request and reply, the token ledger, the trajectory line. */
  async function step(r: Awaited<ReturnType<typeof start>>, t: number): Promise<void> {
    const { m, policy, writer, ledger, messages } = r;
    const turn = t;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const reply = await policy.next({ messages, tools, turn, signal });
    const c1 = process.cpuUsage(c0);
    const tokens = reply.tokens ? ledger.record(reply.tokens) : undefined;
    const c2 = process.cpuUsage(c0);
    writer.write({
      type: "message",
      role: "assistant",
      content: reply.content,
      ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
      latency_ms: reply.latencyMs,
      turn,
      ...(tokens ? { tokens } : {}),
    });
    ms[m].push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu[m].push((c.user + c.system) / 1000);
    parts[m].policy.push((c1.user + c1.system) / 1000);
    parts[m].ledger.push((c2.user + c2.system - c1.user - c1.system) / 1000);
    messages.push({ role: "assistant", content: reply.content, tool_calls: reply.tool_calls });
    for (const call of reply.tool_calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: observationOf[t] ?? "" });
      writer.write({
        type: "observation",
        tool_call_id: call.id,
        name: call.name,
        output: observationOf[t] ?? "",
        status: "ok",
        duration_ms: 1,
        turn,
      });
    }
  }

  /**
   * One rollout per mode, stepped turn by turn in turn: the three turns of a round run within a few
   * milliseconds of each other, so load from other programs hits the modes alike, and each mode's
   * turn is compared with the plain turn of its own round. The order within a round rotates.
   */
  async function round(i: number): Promise<void> {
    const rs = await Promise.all(MODES.map((m) => start(m, i)));
    for (let t = 0; t < TURNS; t++)
      for (let k = 0; k < rs.length; k++) await step(rs[(((k + t + i) % rs.length) + rs.length) % rs.length]!, t);
    for (const r of rs) {
      await r.writer.close();
      bytes[r.m] += statSync(r.file).size;
    }
  }

  for (let i = 0; i < 3; i++) await round(-1 - i); // warm-up
  for (const xs of [...Object.values(ms), ...Object.values(cpu)]) xs.length = 0;
  for (const p of Object.values(parts)) for (const xs of Object.values(p)) xs.length = 0;
  textCpu = 0;
  bytes.plain = 0;
  bytes.capture = 0;
  bytes.tokens = 0;
  for (let i = 0; i < ROLLOUTS; i++) await round(i);
  const load1 = loadavg()[0] as number;
  server.disconnect();
  rmSync(dir, { recursive: true, force: true });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  // Load from other programs lands as a few long turns (preemption, GC at a bad time): the middle 80% is steadier.
  const trimmed = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const cut = Math.floor(s.length / 10);
    return mean(s.slice(cut, s.length - cut));
  };
  const sampled = ROLLOUTS * TURNS * COMPLETION;
  console.log(
    `${ROLLOUTS} rollouts × ${TURNS} turns × ${COMPLETION}-token completions per mode, interleaved turn by turn; ` +
      `load average ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end (CPU figures are this process's, the server's not counted)`,
  );
  const line = (name: string, xs: number[], base: number[]) =>
    `${name}: median ${median(xs).toFixed(3)} ms, mean ${mean(xs).toFixed(3)} ms (${(mean(xs) / mean(base)).toFixed(2)}× plain's mean)`;
  console.log(line("plain turn, CPU   ", cpu.plain, cpu.plain));
  console.log(line("capture turn, CPU ", cpu.capture, cpu.plain));
  console.log(line("tokens turn, CPU  ", cpu.tokens, cpu.plain));
  console.log(line("plain turn, wall  ", ms.plain, ms.plain));
  console.log(line("capture turn, wall", ms.capture, ms.plain));
  console.log(line("tokens turn, wall ", ms.tokens, ms.plain));
  for (const m of ["plain", "capture", "tokens"] as const)
    console.log(
      `  ${m.padEnd(7)} CPU of which: policy ${mean(parts[m].policy).toFixed(3)} ms (median ${median(parts[m].policy).toFixed(3)}), ` +
        `token ledger + packing ${mean(parts[m].ledger).toFixed(3)} ms, the rest (trajectory write) ${(mean(cpu[m]) - mean(parts[m].policy) - mean(parts[m].ledger)).toFixed(3)} ms`,
    );
  // Each turn against the plain turn of its own round (same rollout index, same turn number).
  const added = (name: string, xs: number[]) => {
    const paired = xs.map((x, j) => x - (cpu.plain[j] as number));
    console.log(
      `added by ${name}: ${(mean(xs) - mean(cpu.plain)).toFixed(3)} ms CPU per turn (mean), ` +
        `paired with its round's plain turn: median ${median(paired).toFixed(3)} ms, mean of the middle 80% ${trimmed(paired).toFixed(3)} ms; goal < 1 ms`,
    );
  };
  added("capture", cpu.capture);
  added("token-in/token-out", cpu.tokens);
  if (BEFORE) added(`token-in/token-out of the build at ${BEFORE}`, cpu.before);
  console.log(
    `  tokens turn's template render + tokenise new messages + decode + tool-call parse: ${(textCpu / cpu.tokens.length).toFixed(3)} ms CPU (mean)`,
  );
  const byTurn = (xs: number[]) =>
    Array.from({ length: TURNS }, (_, t) =>
      median(xs.map((x, j) => x - (cpu.plain[j] as number)).filter((_, j) => j % TURNS === t)).toFixed(2),
    );
  console.log(`  paired median by turn number: capture ${byTurn(cpu.capture).join(" ")}; tokens ${byTurn(cpu.tokens).join(" ")} ms`);
  console.log(
    `trajectory bytes per 1,000 sampled tokens: capture ${(((bytes.capture / sampled) * 1000) / 1024).toFixed(2)} KB ` +
      `(tokens ${(((bytes.tokens / sampled) * 1000) / 1024).toFixed(2)} KB, plain ${(((bytes.plain / sampled) * 1000) / 1024).toFixed(2)} KB, ${(bytes.capture / bytes.plain).toFixed(2)}×; goal < 12 KB)`,
  );
}

void main();
