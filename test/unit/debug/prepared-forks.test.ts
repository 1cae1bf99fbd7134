import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { RolloutDebugger } from "../../../src/core/debug/controller";
import { PlannedPolicy } from "../../../src/core/policy/scripted";
import { ProcessSandboxProvider } from "../../../src/core/sandbox/process/provider";
import type { LaunchedRollout } from "../../../src/extension/debug/adapter";
import { dropFork, putFork, takeFork } from "../../../src/extension/debug/prepared-forks";
import { fixtureEnv, tmp } from "../../integration/rollout-helpers";

function prepared(): { r: LaunchedRollout; disposed: () => number } {
  const env = fixtureEnv();
  const task = env.tasks.find((t) => t.id === "via-files")!;
  const provider = new ProcessSandboxProvider({});
  let n = 0;
  // Never started: only the hand-over is under test.
  const d = new RolloutDebugger({
    env,
    task,
    policy: new PlannedPolicy("p", []),
    sandboxProvider: provider,
    file: path.join(tmp("rlenv-fork-"), "f.jsonl"),
    runId: "f",
    rolloutId: "via-files.s0.fork",
  });
  const r: LaunchedRollout = {
    debugger: d,
    env,
    task,
    label: "fixture · fork (oracle)",
    dispose: async () => {
      n++;
      await provider.shutdown();
    },
  };
  return { r, disposed: () => n };
}

test("a prepared fork is handed to one session launch, then its id is refused with the reason", () => {
  const { r } = prepared();
  const id = putFork(r);
  assert.equal(takeFork(id), r);
  assert.throws(() => takeFork(id), /no prepared fork 'fork-\d+': .* once/);
});

test("a fork whose session did not start is dropped and releases its sandbox provider", async () => {
  const { r, disposed } = prepared();
  const id = putFork(r);
  await dropFork(id);
  assert.equal(disposed(), 1);
  assert.throws(() => takeFork(id), /no prepared fork/);
  await dropFork(id);
  assert.equal(disposed(), 1, "dropping twice releases once");
});
