import assert from "node:assert/strict";
import { after, test } from "node:test";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { callTool, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { events, fixtureEnv, ofType, tmp } from "./rollout-helpers";

/** The same engine on the docker backend: containers from the locally built image, no network. */
const skip = missing("docker") || missing("image");
let provider: SandboxProvider | undefined;
let server: ScriptedServer | undefined;
after(async () => {
  await server?.close();
  await provider?.shutdown();
});

test("docker: oracle solves every fixture task, nop none", { skip }, async () => {
  provider = await createSandboxProvider({ backend: "docker" });
  assert.equal(provider.backend, "docker");
  const runsDir = tmp("rlenv-docker-runs-");
  const oracle = await runEnvironment({
    env: fixtureEnv(),
    config: { policy: { kind: "oracle" }, concurrency: 2, sandbox: "docker" },
    runsDir,
    sandboxProvider: provider,
  });
  assert.deepEqual(
    oracle.rollouts.map((r) => [r.task, r.status, r.reward, r.reason]),
    oracle.rollouts.map((r) => [r.task, "completed", 1, "submitted"]),
  );
  const start = ofType(events(oracle.rollouts[0]!.file), "start")[0]!;
  assert.equal(start.sandbox.backend, "docker");
  const nop = await runEnvironment({
    env: fixtureEnv(),
    config: { policy: { kind: "nop" }, concurrency: 2, sandbox: "docker" },
    runsDir,
    sandboxProvider: provider,
  });
  assert.equal(nop.summary.mean_reward, 0);
});

test("docker: an openai-policy rollout with a step timeout and a bad tool call still completes", { skip }, async () => {
  provider ??= await createSandboxProvider({ backend: "docker" });
  server = await startScriptedServer([
    callTool("nope", {}),
    callTool("slow", { seconds: 30 }),
    callTool("put", { path: "greet.txt", text: "hello world\n" }),
    callTool("submit", { answer: "42" }),
  ]);
  const base = fixtureEnv();
  const env = { ...base, manifest: { ...base.manifest, sandbox: { ...base.manifest.sandbox, timeouts: { step: 1, rollout: 60 } } } };
  const r = await runEnvironment({
    env,
    config: { policy: { kind: "openai" }, tasks: ["via-files"], sandbox: "docker" },
    runsDir: tmp("rlenv-docker-runs-"),
    sandboxProvider: provider,
    policyFactory: () => new OpenAIPolicy({ baseURL: server!.baseURL, model: "scripted" }),
  });
  const ro = r.rollouts[0]!;
  assert.equal(ro.reward, 1, ro.reason);
  assert.deepEqual(
    ofType(events(ro.file), "observation").map((o) => o.status),
    ["error", "timeout", "ok", "ok"],
  );
});
