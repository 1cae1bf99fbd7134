import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { JobEvent } from "../../src/core/remote/api";
import { RunnerClient } from "../../src/core/remote/client/client";
import type { EndEvent, MessageEvent, TrajectoryEvent } from "../../src/core/schema/trajectory";
import { readTurnTokens } from "../../src/core/tokens/codec";
import { QWEN3_DIR } from "../support/qwen-tokens";
import { makeFixtureEnv, type StartedRunner, startRunner } from "./remote-helpers";

/**
 * A job that starts its own policy server on the runner (as `vllm serve …` would be named), with a
 * scripted stand-in speaking the protocol: token-in/token-out against it with a tokenizer folder on
 * the runner host, its log in the job folder, and a server that dies mid-job failing the job as
 * an infrastructure fault, never as rewards.
 */

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function freshRunner(): Promise<{ runner: StartedRunner; client: RunnerClient; data: string }> {
  const data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-ps-"));
  const runner = await startRunner(data, []);
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
    rmSync(data, { recursive: true, force: true });
  });
  return { runner, client: new RunnerClient({ url: runner.url, token: runner.token }), data };
}

const standIn = (env = "") => `${env}${env ? " " : ""}${process.execPath} --import tsx ${path.join(__dirname, "remote-policy-server.ts")}`;
/** A port the system just had free (a random one can collide with other tests' servers on a shared machine). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function jobRollouts(data: string, jobId: string): TrajectoryEvent[][] {
  const out: TrajectoryEvent[][] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (dir.endsWith(`${path.sep}rollouts`) && e.name.endsWith(".jsonl"))
        out.push(
          readFileSync(p, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as TrajectoryEvent),
        );
    }
  };
  walk(path.join(data, "jobs", jobId));
  return out;
}

test("a token-in/token-out job starts its policy server, reads the tokenizer folder on the runner host, logs the server in the job folder", async () => {
  const { client, data } = await freshRunner();
  const port = await freePort();
  const { job } = await client.submit(makeFixtureEnv(2, null), {
    config: { policy: { kind: "openai", model: "scripted", tokens: true, tokenizer: QWEN3_DIR }, sandbox: "process" },
    policy_server: { command: standIn("READY_DELAY_MS=300"), port, ready_timeout_s: 60 },
  });
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  const logs = events.flatMap((e) => (e.type === "log" ? [e.line] : []));
  const final = await client.job(job.id);
  assert.equal(final.state, "completed", logs.join("\n"));
  assert.deepEqual(final.progress, { done: 2, total: 2, mean_reward: 1 });
  assert.match(readFileSync(path.join(data, "jobs", job.id, "policy-server.log"), "utf8"), new RegExp(`scripted policy server on ${port}`));
  const rollouts = jobRollouts(data, job.id);
  assert.equal(rollouts.length, 2);
  for (const evs of rollouts) {
    const start = evs.find((e) => e.type === "start");
    assert.equal(start?.type === "start" && start.policy.params?.tokens, true, "the shard ran in token-in/token-out mode");
    const turn = evs.find((e): e is MessageEvent => e.type === "message" && e.role === "assistant");
    assert.equal(turn?.tokens?.capture, "engine");
    const { completionIds, logprobs } = readTurnTokens(turn!.tokens!);
    assert.ok(completionIds.length > 5 && logprobs?.length === completionIds.length);
    const end = evs.find((e): e is EndEvent => e.type === "end");
    assert.equal(end?.tokens?.drift_turns, 0);
    assert.deepEqual(end?.tokens?.loss_mask, [[end!.tokens!.length - completionIds.length, end!.tokens!.length]]);
  }
});

test("a policy server that dies mid-job fails the job as an infrastructure fault; no rollout is scored for it", async () => {
  const { client, data } = await freshRunner();
  const { job } = await client.submit(makeFixtureEnv(4, null), {
    config: { policy: { kind: "openai", model: "scripted", timeout_ms: 5000 }, concurrency: 1, sandbox: "process" },
    policy_server: { command: standIn("READY_DELAY_MS=300 DIE_AFTER_REQUESTS=1"), port: await freePort(), ready_timeout_s: 60 },
  });
  const events: JobEvent[] = [];
  await client.followEvents(job.id, (e) => events.push(e));
  const logs = events.flatMap((e) => (e.type === "log" ? [e.line] : []));
  const final = await client.job(job.id);
  assert.equal(final.state, "failed", logs.join("\n"));
  assert.match(final.error ?? "", /^infrastructure: the policy server exited with 3 during the job \(see policy-server\.log/);
  assert.match(readFileSync(path.join(data, "jobs", job.id, "policy-server.log"), "utf8"), /dying on request 2/);
  // The one rollout the server answered scored 1; none of the others got a reward of 0 for the crash.
  const ends = events.flatMap((e) => (e.type === "rollout-end" ? [e] : []));
  assert.ok(
    ends.every((e) => e.reward === 1 || e.reward === null),
    JSON.stringify(ends.map((e) => [e.status, e.reward])),
  );
  for (const evs of jobRollouts(data, job.id)) {
    const end = evs.find((e): e is EndEvent => e.type === "end");
    if (end && end.reward !== null && end.reward !== undefined) assert.equal(end.reward, 1);
  }
});

test("a token job whose tokenizer folder is not on the runner host fails before any server starts, naming the field", async () => {
  const { client, data } = await freshRunner();
  const nowhere = path.join(tmpdir(), "rlenv-no-such-model");
  const { job } = await client.submit(makeFixtureEnv(1, null), {
    config: { policy: { kind: "openai", model: "scripted", tokens: true, tokenizer: nowhere }, sandbox: "process" },
    policy_server: { command: standIn(), port: await freePort(), ready_timeout_s: 60 },
  });
  await client.followEvents(job.id, () => {});
  const final = await client.job(job.id);
  assert.equal(final.state, "failed");
  assert.equal(final.error, `config.policy.tokenizer: ${nowhere} has no tokenizer.json on this runner host`);
  assert.deepEqual(
    readdirSync(path.join(data, "jobs", job.id)).filter((f) => f === "policy-server.log"),
    [],
    "the server was never started",
  );
});
