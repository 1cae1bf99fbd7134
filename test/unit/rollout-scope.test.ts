import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { RolloutTimeoutError, SandboxInfraError } from "../../src/core/rollout/errors";
import { RolloutScope } from "../../src/core/rollout/rollout-scope";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import type { Sandbox } from "../../src/core/model/sandbox";
import { fixtureEnv } from "../integration/rollout-helpers";

const env = fixtureEnv();
const task = env.tasks.find((t) => t.id === "via-files")!;

test("the scope starts the sandbox once on first use and closes it, its timer and its listener, even when its body throws", async () => {
  const provider = new ProcessSandboxProvider({});
  const outside = new AbortController();
  let sandbox: Sandbox | undefined;
  let inside: RolloutScope | undefined;
  try {
    await assert.rejects(async () => {
      await using scope = new RolloutScope({ env, task, sandboxProvider: provider, runId: "r", rolloutId: "a", signal: outside.signal });
      inside = scope;
      sandbox = await scope.sandbox();
      assert.equal(await scope.sandbox(), sandbox, "one sandbox per rollout");
      assert.equal((await sandbox.exec("cat greet.txt 2>/dev/null; echo ok")).exitCode, 0);
      assert.equal(getEventListeners(outside.signal, "abort").length, 1);
      throw new Error("the body failed");
    }, /the body failed/);
    assert.equal(getEventListeners(outside.signal, "abort").length, 0, "the listener on the caller's signal is gone");
    await assert.rejects(inside!.sandbox(), (e: unknown) => e instanceof SandboxInfraError && /sandbox is closed/.test(e.message));
    await assert.rejects(sandbox!.exec("true"), /sandbox is closed/, "the sandbox was closed");
    assert.ok(inside!.sandboxMs > 0, "its start and close are counted");
    // A second disposal (the rollout's close, then `await using`) does nothing.
    await inside![Symbol.asyncDispose]();
  } finally {
    await provider.shutdown();
  }
});

test("the caller's abort reaches the agent loop's signal; the deadline aborts it with a timeout", async () => {
  const provider = new ProcessSandboxProvider({});
  try {
    const outside = new AbortController();
    {
      await using scope = new RolloutScope({ env, task, sandboxProvider: provider, runId: "r", rolloutId: "b", signal: outside.signal });
      outside.abort(new Error("stop"));
      assert.equal(scope.signal.aborted, true);
      assert.equal((scope.signal.reason as Error).message, "stop");
    }
    const short = { ...env, manifest: { ...env.manifest, sandbox: { ...env.manifest.sandbox, timeouts: { step: 1, rollout: 0.01 } } } };
    await using scope = new RolloutScope({ env: short, task, sandboxProvider: provider, runId: "r", rolloutId: "c" });
    const reason = await new Promise<unknown>((resolve) => scope.signal.addEventListener("abort", () => resolve(scope.signal.reason)));
    assert.ok(reason instanceof RolloutTimeoutError);
    assert.match(reason.message, /rollout timeout \(0.01 s\) reached/);
    assert.equal(scope.outside, undefined);
  } finally {
    await provider.shutdown();
  }
});

test("a sandbox that cannot start is recorded as the scope's start failure, an infra error naming the backend", async () => {
  const provider = new ProcessSandboxProvider({});
  const broken = { ...task, files: { "../escape.txt": "x" } };
  try {
    await using scope = new RolloutScope({ env, task: broken, sandboxProvider: provider, runId: "r", rolloutId: "d" });
    await assert.rejects(
      scope.sandbox(),
      (e: unknown) => e instanceof SandboxInfraError && /sandbox \(process\) could not start/.test(e.message),
    );
    assert.ok(scope.startFailure instanceof SandboxInfraError);
    assert.equal(await scope.lost(), null, "a sandbox that never started is not lost");
  } finally {
    await provider.shutdown();
  }
});
