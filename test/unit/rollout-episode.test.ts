// The Episode driven with no policy and no run folder, as a server for an outside trainer
// drives it: reset, tool calls one by one, score, close; and the same calls through the policy
// loop score the same (one scoring path).
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { Policy } from "../../src/core/policy/types";
import { openEpisode } from "../../src/core/rollout/open-episode";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { ChatToolCall } from "../../src/core/schema/trajectory";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { fixtureEnv, processProvider, tmp } from "../integration/rollout-helpers";

const env = fixtureEnv();
const task = env.tasks.find((t) => t.id === "via-tool-calls")!;
const call = (id: string, name: string, args: unknown): ChatToolCall => ({ id, name, arguments: JSON.stringify(args) });

test("an episode with no policy: reset, steps with tool calls, score, close; its trajectory kept in memory", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  try {
    const episode = await openEpisode({
      env,
      task,
      sandboxProvider: p.provider,
      runId: "serve",
      rolloutId: "e1",
      seed: 7,
      policy: { kind: "trainer" },
    });
    const start = await episode.reset();
    assert.deepEqual(
      start.messages.map((m) => m.role),
      ["system", "user"],
    );
    assert.deepEqual(start.tools.map((x) => x.name).sort(), ["put", "show", "slow", "spew", "submit"]);

    const wrote = await episode.step(call("c1", "put", { path: "greet.txt", text: "hello world\n" }), 0);
    assert.equal(wrote.done, false);
    assert.equal(wrote.observation.status, "ok");
    assert.match(String(wrote.observation.output), /wrote greet.txt/);
    const unknown = await episode.step(call("c2", "nope", {}), 1);
    assert.equal(unknown.observation.status, "error");
    assert.match(String(unknown.observation.output), /unknown tool 'nope'/);
    const shown = await episode.step(call("c3", "show", { path: "greet.txt" }), 1);
    assert.equal(shown.observation.output, "hello world\n");
    const submitted = await episode.step(call("c4", "submit", { answer: "42" }), 2);
    assert.equal(submitted.done, true);
    const after = await episode.step(call("c5", "put", { path: "greet.txt", text: "no\n" }), 2);
    assert.equal(after.observation.error, "after submit", "a call after the submit is answered, never run");

    const score = await episode.score();
    assert.equal(score.status, "completed");
    assert.equal(score.reward, 1);
    assert.equal(score.infra, false);
    assert.deepEqual(
      score.components?.map((c) => [c.name, c.score]),
      [
        ["hidden-check", 1],
        ["answer", 1],
      ],
    );
    const result = await episode.close();
    assert.equal(result.reward, 1);
    assert.equal(result.file, "");
    const types = episode.trajectory.events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 3), ["start", "message", "message"]);
    assert.deepEqual(types.slice(-2), ["reward", "end"]);
    assert.equal(types.filter((x) => x === "observation").length, 5);
    assert.deepEqual(
      episode.trajectory.events.map((e) => e.seq),
      types.map((_, i) => i),
    );
    const first = episode.trajectory.events[0];
    assert.equal(first?.type === "start" ? first.seed : undefined, 7);
    assert.deepEqual(p.provider.backend, "process");
  } finally {
    await p.provider.shutdown();
  }
});

test("the same tool calls through the policy loop score what the episode scored, and a wrong answer scores less", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  const dir = tmp("rlenv-episode-");
  const scripted = (answer: string): Policy => ({
    kind: "scripted",
    next: async ({ turn }) => ({
      content: null,
      latencyMs: 0,
      tool_calls: turn === 0 ? [call("", "put", { path: "greet.txt", text: "hello world\n" })] : [call("", "submit", { answer })],
    }),
  });
  try {
    const base = { env, task, sandboxProvider: p.provider, runId: "run" };
    const right = await runRollout({ ...base, policy: scripted("42"), rolloutId: "a", file: path.join(dir, "a.jsonl") });
    assert.equal(right.reward, 1);
    assert.equal(right.status, "completed");
    assert.equal(right.reason, "submitted");
    const events = readTrajectory(right.file).events;
    assert.deepEqual(
      events.map((e) => e.type),
      ["start", "message", "message", "message", "tool_call", "observation", "message", "tool_call", "observation", "reward", "end"],
    );

    const episode = await openEpisode({ ...base, policy: { kind: "trainer" }, rolloutId: "b" });
    await episode.reset();
    await episode.step(call("c1", "put", { path: "greet.txt", text: "hello world\n" }), 0);
    await episode.step(call("c2", "submit", { answer: "41" }), 1);
    const wrong = await episode.score();
    await episode.close();
    assert.equal(wrong.status, "completed");
    assert.equal(wrong.reward, 0.5);
  } finally {
    await p.provider.shutdown();
  }
});
