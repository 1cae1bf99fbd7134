// Per-rollout accounting and provenance: what a rollout spent (sandbox-seconds, policy tokens,
// judge calls and their tokens) and the reward definition it was scored by, in its trajectory,
// its result, the run's summary and a comparison of two runs.
import assert from "node:assert/strict";
import path from "node:path";
import { after, test } from "node:test";
import type { Policy } from "../../src/core/policy/types";
import { compareRuns } from "../../src/core/report/compare";
import type { ReportRollout } from "../../src/core/report/report-rollout";
import { buildReadiness } from "../../src/core/report/readiness";
import { judgeRubric } from "../../src/core/reward/judge-client";
import { emptyJudgeUsage, meteringJudges } from "../../src/core/reward/judge-meter";
import { rewardHash } from "../../src/core/reward/reward-hash";
import { runRollout } from "../../src/core/rollout/run-rollout";
import { summarize } from "../../src/core/runs/summarize";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { type ChatToolCall, TrajectoryEvent } from "../../src/core/schema/trajectory";
import { VerifierConfig } from "../../src/core/schema/verifier";
import { type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { processProvider, tmp, variant } from "../integration/rollout-helpers";

const servers: ScriptedServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});
const verdict = JSON.stringify({ items: [{ index: 1, passed: true, reason: "ok" }] });

test("judge calls made inside meteringJudges are counted with the tokens the server reported; outside, nothing is", async () => {
  const judge = await startScriptedServer([{ reply: { content: verdict }, usage: { prompt_tokens: 120, completion_tokens: 30 } }]);
  servers.push(judge);
  const ask = () =>
    judgeRubric({
      baseURL: judge.baseURL,
      model: "j",
      question: "q",
      answer: "a",
      rubric: ["r"],
      signal: new AbortController().signal,
      timeoutMs: 5000,
    });
  const usage = emptyJudgeUsage();
  await meteringJudges(usage, async () => {
    await ask();
    await Promise.all([ask(), ask()]);
  });
  await ask();
  assert.deepEqual(usage, { calls: 3, prompt_tokens: 360, completion_tokens: 90 });
});

test("a rollout's end event and result carry sandbox-seconds, policy tokens and judge usage; its start event the reward hash", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  const judge = await startScriptedServer([{ reply: { content: verdict }, usage: { prompt_tokens: 200, completion_tokens: 40 } }]);
  servers.push(judge);
  const env = variant((m) => ({
    reward: [
      ...m.reward,
      VerifierConfig.parse({ type: "judge", name: "rubric", rubric: ["says 42"], base_url: judge.baseURL, model: "j" }),
    ],
  }));
  const task = env.tasks.find((x) => x.id === "via-tool-calls")!;
  const call = (name: string, args: unknown): ChatToolCall => ({ id: "", name, arguments: JSON.stringify(args) });
  const policy: Policy = {
    kind: "scripted",
    next: async ({ turn }) => ({
      content: null,
      latencyMs: 1,
      usage: { prompt_tokens: 50 + turn, completion_tokens: 7 },
      tool_calls: turn === 0 ? [call("put", { path: "greet.txt", text: "hello world\n" })] : [call("submit", { answer: "42" })],
    }),
  };
  try {
    const file = path.join(tmp("rlenv-acct-"), "r.jsonl");
    const r = await runRollout({ env, task, policy, sandboxProvider: p.provider, runId: "run", rolloutId: "r", file });
    assert.equal(r.reward, 1);
    const events = readTrajectory(file).events;
    const start = events.find((e) => e.type === "start");
    const end = events.findLast((e) => e.type === "end");
    assert.ok(start?.type === "start" && end?.type === "end");
    assert.equal(start.reward_hash, rewardHash(env));
    assert.match(start.task_reward_hash ?? "", /^[0-9a-f]{16}$/);
    assert.deepEqual(end.usage, { prompt_tokens: 101, completion_tokens: 14 });
    assert.deepEqual(end.judge, { calls: 1, prompt_tokens: 200, completion_tokens: 40 });
    // Its own sandbox and the fresh judging one were held for at least the time the tools and tests ran.
    assert.ok((end.sandbox_seconds ?? 0) > 0);
    assert.ok((end.sandbox_seconds ?? 0) <= (end.timings.total_ms / 1000) * 2 + 1e-6, "at most two sandboxes over the rollout's time");
    assert.equal(r.sandboxSeconds, end.sandbox_seconds);
    assert.deepEqual(r.judge, end.judge);
    assert.equal(r.rewardHash, start.reward_hash);
  } finally {
    await p.provider.shutdown();
  }
});

test("a trajectory written before accounting (no reward hash, no spend) still reads", () => {
  const old = [
    {
      type: "start",
      seq: 0,
      t: 1,
      run_id: "r",
      rollout_id: "a",
      env: { name: "e", hash: "h", domain: "custom" },
      task: { id: "t", prompt: "p" },
      policy: { kind: "nop" },
      sample: 0,
      sandbox: { backend: "process" },
    },
    {
      type: "end",
      seq: 1,
      t: 2,
      status: "completed",
      reward: 0,
      turns: 1,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      timings: { total_ms: 1, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 },
    },
  ];
  for (const e of old) assert.equal(TrajectoryEvent.safeParse(e).success, true);
});

test("the summary sums what every rollout spent and lists the reward definitions; older rollouts are not counted as spending", () => {
  const base = { task: "t", status: "completed", reward: 1 };
  const s = summarize("run", [
    {
      ...base,
      sample: 0,
      usage: { prompt_tokens: 10, completion_tokens: 2 },
      sandboxSeconds: 1.5,
      judge: { calls: 1, prompt_tokens: 100, completion_tokens: 9 },
      rewardHash: "bbbb",
    },
    {
      ...base,
      sample: 1,
      status: "error",
      infra: true,
      reward: null,
      usage: { prompt_tokens: 5, completion_tokens: 1 },
      sandboxSeconds: 0.5,
      judge: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
      rewardHash: "aaaa",
    },
    { ...base, sample: 2 },
  ]);
  assert.deepEqual(s.spent, {
    rollouts: 2,
    sandbox_seconds: 2,
    policy_prompt_tokens: 15,
    policy_completion_tokens: 3,
    judge_calls: 1,
    judge_prompt_tokens: 100,
    judge_completion_tokens: 9,
  });
  assert.deepEqual(s.reward_hashes, ["aaaa", "bbbb"]);
  assert.equal(summarize("old", [{ ...base, sample: 0 }]).spent, undefined);
});

test("comparing two runs scored by different reward definitions says so", () => {
  const rollouts: ReportRollout[] = ["t1", "t2"].map((task) => ({
    task,
    sample: 0,
    status: "completed",
    infra: false,
    reward: 1,
    components: [],
    turns: 1,
    usage: null,
    timings: null,
    observations: 0,
    observationsTruncated: 0,
  }));
  const meta = (id: string, reward_hash: string) => ({ runId: id, dir: id, env: { name: "e", hash: "h", reward_hash }, policy: "p" });
  const c = compareRuns(buildReadiness(rollouts, meta("a", "1111")), buildReadiness(rollouts, meta("b", "2222")));
  assert.deepEqual(c.reward_changed, { a: "1111", b: "2222" });
  assert.match(c.verdict, /^reward definition changed \(1111 → 2222\)/);
  const same = compareRuns(buildReadiness(rollouts, meta("a", "1111")), buildReadiness(rollouts, meta("b", "1111")));
  assert.equal(same.reward_changed, undefined);
  assert.doesNotMatch(same.verdict, /reward definition/);
});
