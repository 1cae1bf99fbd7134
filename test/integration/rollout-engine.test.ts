import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { Limiter } from "../../src/core/rollout/limiter";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { exportChatJsonl } from "../../src/core/runs/export-chat";
import { listRuns, readRun } from "../../src/core/runs/run-dir";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { callTool, type Script, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { events, fixtureEnv, leftovers, ofType, processProvider, tmp, variant } from "./rollout-helpers";
import type { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";

const fast = { baseMs: 5, maxMs: 20 };
let provider: SandboxProvider;
let baseDir = "";
let skip: string | false = false;
const servers: ScriptedServer[] = [];

before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else ({ provider, baseDir } = p);
});
after(async () => {
  for (const s of servers) await s.close();
  await provider?.shutdown();
  // Closed sandboxes may wait warm for reuse until shutdown; after it none is left on disk.
  if (baseDir) assert.deepEqual(leftovers(baseDir), [], "shutdown removed every sandbox");
});

/** Sandboxes still held by a rollout: none once a run has ended, however many stay warm for the next. */
const unclosed = () => (provider as ProcessSandboxProvider).lentIds;

async function server(script: Script): Promise<ScriptedServer> {
  const s = await startScriptedServer(script);
  servers.push(s);
  return s;
}
const scripted =
  (s: ScriptedServer, extra: Partial<ConstructorParameters<typeof OpenAIPolicy>[0]> = {}) =>
  () =>
    new OpenAIPolicy({ baseURL: s.baseURL, model: "scripted", backoff: fast, ...extra });

describe("rollout engine on the process sandbox", () => {
  test("oracle solves every fixture task through each solution kind; nop solves none", async (t) => {
    if (skip) return t.skip(skip);
    const runsDir = tmp("rlenv-runs-");
    const oracle = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "oracle" }, concurrency: 4 },
      runsDir,
      sandboxProvider: provider,
    });
    assert.deepEqual(
      oracle.rollouts.map((r) => [r.task, r.status, r.reward]),
      [
        ["via-commands", "completed", 1],
        ["via-files", "completed", 1],
        ["via-patch", "completed", 1],
        ["via-tool-calls", "completed", 1],
      ],
    );
    assert.equal(oracle.summary.mean_reward, 1);
    assert.equal(oracle.summary.pass_at_k["1"], 1);
    const nop = await runEnvironment({ env: fixtureEnv(), config: { policy: { kind: "nop" } }, runsDir, sandboxProvider: provider });
    assert.equal(nop.summary.mean_reward, 0);
    assert.deepEqual(nop.summary.statuses, { completed: 4 });
    // Run folders: run.json, summary.json, one trajectory per rollout, listed newest first.
    const runs = listRuns(runsDir);
    assert.deepEqual(runs.map((r) => r.record.id).sort(), [oracle.record.id, nop.record.id].sort());
    const info = readRun(oracle.runDir);
    assert.equal(info.record.status, "completed");
    assert.equal(info.summary?.rollouts, 4);
    assert.equal(readdirSync(path.join(oracle.runDir, "rollouts")).length, 4);
    assert.deepEqual(unclosed(), [], "every sandbox closed");
  });

  test("openai policy: 500 twice, unknown tool, bad JSON, parallel calls in order, truncation, submit", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([
      { status: 500 },
      { status: 500 },
      {
        reply: {
          content: "Let me look around.",
          tool_calls: [
            { name: "frobnicate", arguments: {} },
            { name: "put", arguments: '{"path": "greet.txt", "text": ' },
            { name: "show", arguments: { path: "greet.txt" } },
            { name: "spew", arguments: { n: 5000 } },
          ],
        },
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
      {
        reply: { content: null, tool_calls: [{ name: "put", arguments: { path: "greet.txt", text: "hello world\n" } }] },
        usage: { prompt_tokens: 200, completion_tokens: 20 },
      },
      {
        reply: {
          content: "Done.",
          tool_calls: [
            { name: "submit", arguments: { answer: "42" } },
            { name: "show", arguments: { path: "greet.txt" } },
          ],
        },
        usage: { prompt_tokens: 300, completion_tokens: 30 },
      },
    ]);
    const runsDir = tmp("rlenv-runs-");
    const r = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "openai", model: "scripted", base_url: s.baseURL }, tasks: ["via-tool-calls"] },
      runsDir,
      sandboxProvider: provider,
    });
    const [ro] = r.rollouts;
    assert.equal(ro?.status, "completed");
    assert.equal(ro?.reward, 1);
    assert.deepEqual(ro?.usage, { prompt_tokens: 600, completion_tokens: 60 });
    assert.equal(s.requests.length, 5);
    const evs = events(ro!.file);
    const obs = ofType(evs, "observation");
    assert.deepEqual(
      obs.map((o) => [o.name, o.status]),
      [
        ["frobnicate", "error"],
        ["put", "error"],
        ["show", "ok"],
        ["spew", "ok"],
        ["put", "ok"],
        ["submit", "ok"],
        ["show", "error"],
      ],
    );
    assert.match(String(obs[0]?.output), /unknown tool 'frobnicate'; the tools are: submit, put, show/);
    assert.match(String(obs[1]?.output), /not valid JSON/);
    assert.equal(obs[2]?.output, "hello\n");
    assert.equal(obs[3]?.truncated?.original_chars, 5000);
    assert.ok(String(obs[3]?.output).length <= 200);
    assert.match(String(obs[6]?.output), /already submitted/);
    // The bad-JSON call is recorded with its raw text.
    assert.equal(ofType(evs, "tool_call")[1]?.arguments, '{"path": "greet.txt", "text": ');
    // The second policy request carries every tool result, in call order, as the policy saw them.
    const second = s.requests[3]!.messages.filter((m) => m.role === "tool");
    assert.deepEqual(
      second.map((m) => m.tool_call_id),
      ["call_2_0", "call_2_1", "call_2_2", "call_2_3"],
    );
    assert.ok(String(second[3]?.content).length <= 200);
    const end = ofType(evs, "end")[0]!;
    assert.equal(end.turns, 3);
    assert.equal(evs.at(-1)?.type, "end");
    assert.deepEqual(
      evs.map((e) => e.seq),
      evs.map((_, i) => i),
    );
    // Chat export: the same conversation with its tools, filtered by reward.
    const lines = [...exportChatJsonl(r.runDir, { minReward: 1 })];
    assert.equal(lines.length, 1);
    const rec = JSON.parse(lines[0]!) as { messages: Array<{ role: string }>; tools: Array<{ function: { name: string } }> };
    assert.deepEqual(rec.messages.map((m) => m.role).slice(0, 4), ["system", "user", "assistant", "tool"]);
    // Seven tool results, less the two replying to the last assistant turn (its parallel calls, submit among them): a record ends with that turn.
    assert.equal(rec.messages.filter((m) => m.role === "tool").length, 5);
    assert.equal(rec.messages.at(-1)?.role, "assistant");
    assert.deepEqual(
      rec.tools.map((t) => t.function.name),
      ["submit", "put", "show", "slow", "spew"],
    );
    assert.equal([...exportChatJsonl(r.runDir, { minReward: 1.5 })].length, 0);

    // Replay the recorded actions: the same reward, without the policy server.
    const replay = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "replay", replay: r.runDir }, tasks: ["via-tool-calls"] },
      runsDir,
      sandboxProvider: provider,
    });
    assert.equal(replay.rollouts[0]?.reward, 1);
    assert.equal(s.requests.length, 5);
  });

  test("a policy server that hangs past its timeout: infra error, retried by the scheduler, then status error", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([{ hang: true }]);
    const runsDir = tmp("rlenv-runs-");
    const logs: string[] = [];
    const r = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "openai" }, tasks: ["via-files"] },
      runsDir,
      sandboxProvider: provider,
      policyFactory: scripted(s, { timeoutMs: 150, retries: 1 }),
      maxInfraAttempts: 2,
      infraBackoff: fast,
      onProgress: (e) => e.type === "log" && logs.push(e.message),
    });
    const ro = r.rollouts[0]!;
    assert.equal(ro.status, "error");
    assert.equal(ro.infra, true);
    assert.equal(ro.reward, null);
    assert.equal(s.requests.length, 4, "2 attempts × (1 try + 1 retry)");
    assert.match(logs.join("\n"), /infrastructure failure .*retry 2\/2/);
    const attempt1 = path.join(r.runDir, "attempts", "via-files.s0.try1.jsonl");
    assert.ok(existsSync(attempt1));
    const err = ofType(events(ro.file), "error")[0]!;
    assert.deepEqual([err.where, err.infra], ["policy", true]);
    assert.match(err.message, /failed 2 times/);
    // The machinery's failure is counted apart, never as the agent's zero.
    assert.equal(r.summary.mean_reward, null);
    assert.equal(r.summary.infra_errors, 1);
  });

  test("a 4xx from the policy fails the rollout once, never retried", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([{ status: 400, message: "prompt too long" }]);
    const r = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "openai" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      policyFactory: scripted(s),
      infraBackoff: fast,
    });
    assert.equal(r.rollouts[0]?.status, "error");
    assert.equal(r.rollouts[0]?.infra, false);
    assert.equal(s.requests.length, 1);
    assert.ok(!existsSync(path.join(r.runDir, "attempts")));
  });

  test("step timeout: the tool is stopped, the agent reads a timeout observation and goes on", async (t) => {
    if (skip) return t.skip(skip);
    const env = variant((m) => ({ sandbox: { ...m.sandbox, timeouts: { step: 0.5, rollout: 60 } } }));
    const s = await server([
      callTool("slow", { seconds: 20 }),
      callTool("put", { path: "greet.txt", text: "hello world" }),
      callTool("submit", { answer: "42" }),
    ]);
    const t0 = Date.now();
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "openai" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      policyFactory: scripted(s),
    });
    assert.ok(Date.now() - t0 < 10_000);
    const obs = ofType(events(r.rollouts[0]!.file), "observation");
    assert.equal(obs[0]?.status, "timeout");
    assert.equal(r.rollouts[0]?.status, "completed");
    assert.equal(r.rollouts[0]?.reward, 1);
  });

  test("rollout timeout ends the loop with status timeout, and the final state is still scored", async (t) => {
    if (skip) return t.skip(skip);
    const env = variant((m) => ({ sandbox: { ...m.sandbox, timeouts: { step: 5, rollout: 1 } } }));
    const s = await server((_req, i) =>
      i === 0 ? callTool("put", { path: "greet.txt", text: "hello world" }) : callTool("slow", { seconds: 0.4 }),
    );
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "openai" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      policyFactory: scripted(s),
    });
    const ro = r.rollouts[0]!;
    assert.equal(ro.status, "timeout");
    const reward = ofType(events(ro.file), "reward")[0]!;
    assert.deepEqual(
      reward.components.map((c) => [c.name, c.score]),
      [
        ["hidden-check", 1],
        ["answer", 0],
      ],
    );
    assert.equal(ro.reward, 0.5);
  });

  test("max_turns without submit: truncated and scored", async (t) => {
    if (skip) return t.skip(skip);
    const env = variant(() => ({ max_turns: 2 }));
    const s = await server([callTool("show", { path: "greet.txt" })]);
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "openai" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      policyFactory: scripted(s),
    });
    assert.equal(r.rollouts[0]?.status, "truncated");
    assert.equal(r.rollouts[0]?.reward, 0);
    assert.equal(s.requests.length, 2);
  });

  test("a verifier that hangs is stopped at its timeout: error recorded, score 0, the rest still counts", async (t) => {
    if (skip) return t.skip(skip);
    const env = variant((m) => ({
      reward: [{ type: "script", name: "stuck", weight: 1, command: "sleep 30; echo 1", timeout: 1 }, m.reward[1]!],
    }));
    const t0 = Date.now();
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
    });
    assert.ok(Date.now() - t0 < 10_000);
    const reward = ofType(events(r.rollouts[0]!.file), "reward")[0]!;
    assert.equal(reward.components[0]?.score, 0);
    assert.match(reward.components[0]?.error ?? "", /timed out/);
    assert.equal(reward.total, 0.5);
    assert.equal(r.rollouts[0]?.status, "completed");
  });

  test("a judge server that does not answer: infra error, retried, kept out of the scores (never the agent's zero)", async (t) => {
    if (skip) return t.skip(skip);
    // Nothing listens on loopback port 9 (discard): the judge is down.
    const env = variant((m) => ({
      reward: [
        { type: "judge", name: "judge", weight: 1, rubric: ["says 42"], base_url: "http://127.0.0.1:9/v1", model: "judge-1" },
        m.reward[1]!,
      ],
    }));
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, tasks: ["via-files"] },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      maxInfraAttempts: 2,
      infraBackoff: fast,
    });
    const ro = r.rollouts[0]!;
    assert.deepEqual([ro.status, ro.infra, ro.reward, ro.attempts], ["error", true, null, 2]);
    const err = ofType(events(ro.file), "error")[0]!;
    assert.deepEqual([err.where, err.infra], ["verifier", true]);
    assert.match(err.message, /the judge at http:\/\/127\.0\.0\.1:9\/v1 did not grade the answer/);
    assert.equal(r.summary.mean_reward, null);
    assert.equal(r.summary.infra_errors, 1);
  });

  test("cancellation: running rollouts end cancelled, queued ones never start, sandboxes are closed", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([callTool("slow", { seconds: 3 })]);
    const ac = new AbortController();
    let started = 0;
    const r = await runEnvironment({
      env: fixtureEnv(),
      config: { policy: { kind: "openai" }, k: 3, concurrency: 2 },
      runsDir: tmp("rlenv-runs-"),
      sandboxProvider: provider,
      policyFactory: scripted(s),
      signal: ac.signal,
      onProgress: (e) => {
        if (e.type === "rollout-start" && ++started === 2) setTimeout(() => ac.abort(new Error("Ctrl-C")), 300);
      },
    });
    assert.equal(r.record.status, "cancelled");
    assert.equal(r.rollouts.length, 2);
    for (const ro of r.rollouts) {
      assert.equal(ro.status, "cancelled");
      assert.equal(ofType(events(ro.file), "end")[0]?.status, "cancelled");
    }
    assert.equal(r.summary.statuses.cancelled, 2);
    assert.equal(JSON.parse(readFileSync(path.join(r.runDir, "run.json"), "utf8")).status, "cancelled");
    assert.deepEqual(unclosed(), []);
  });
  test("shared slots: two runs through one set never exceed it together, and both finish", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([callTool("slow", { seconds: 0.2 })]);
    const slots = new Limiter(2);
    let inFlight = 0;
    let peak = 0;
    const starts: string[] = [];
    const run = (label: string) =>
      runEnvironment({
        env: fixtureEnv(),
        config: { policy: { kind: "openai" }, concurrency: 8 },
        runsDir: tmp("rlenv-runs-"),
        sandboxProvider: provider,
        policyFactory: scripted(s),
        slots,
        onProgress: (e) => {
          if (e.type === "rollout-start") {
            starts.push(label);
            peak = Math.max(peak, ++inFlight);
          } else if (e.type === "rollout-end") inFlight--;
        },
      });
    const [a, b] = await Promise.all([run("a"), run("b")]);
    assert.equal(a.rollouts.length, 4);
    assert.equal(b.rollouts.length, 4);
    assert.equal(peak, 2, "more rollouts in flight than slots");
    // First come, first served: b's rollouts start before a's last ones, not after them all.
    assert.ok(starts.indexOf("b") < starts.lastIndexOf("a"), starts.join(""));
    assert.equal(slots.inFlight, 0);
    assert.deepEqual(unclosed(), []);
  });

  test("shared slots: a run cancelled while its rollouts wait for a slot ends cancelled at once", async (t) => {
    if (skip) return t.skip(skip);
    const s = await server([callTool("slow", { seconds: 2 })]);
    const slots = new Limiter(1);
    const hog = new AbortController();
    const waiting = new AbortController();
    const common = { env: fixtureEnv(), runsDir: tmp("rlenv-runs-"), sandboxProvider: provider, policyFactory: scripted(s), slots };
    const first = runEnvironment({ ...common, config: { policy: { kind: "openai" }, concurrency: 1 }, signal: hog.signal });
    const second = runEnvironment({ ...common, config: { policy: { kind: "openai" }, concurrency: 4 }, signal: waiting.signal });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    waiting.abort(new Error("stop"));
    const r = await second;
    assert.ok(Date.now() - t0 < 1500, "the waiting run held on until a slot came free");
    assert.equal(r.record.status, "cancelled");
    assert.equal(r.rollouts.length, 0);
    hog.abort(new Error("done"));
    await first;
    assert.deepEqual(unclosed(), []);
  });
});
