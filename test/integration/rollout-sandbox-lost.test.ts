import { sandboxProcesses } from "../support/proc-tree";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import Docker from "dockerode";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { RolloutHooks } from "../../src/core/rollout/rollout-types";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { exportChatJsonl } from "../../src/core/runs/export-chat";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { events, FIXTURE, ofType, processProvider, tmp } from "./rollout-helpers";

/**
 * A sandbox that dies or freezes mid-rollout is the machinery's failure, never the agent's:
 * the rollout ends as an infrastructure error, is retried in a fresh sandbox, and the run's
 * result equals a clean run's. The oracle's first call sleeps, so the fault lands mid-step.
 */
const skipDocker = missing("docker") || missing("image");

/** The rollout fixture with two tasks whose solution starts with a slow call; step timeout 3 s. `verifySleep`: seconds the hidden check sleeps first. */
function slowEnv(verifySleep = 0) {
  const dir = tmp("rlenv-lost-env-");
  const manifest = readFileSync(path.join(FIXTURE, "environment.yaml"), "utf8").replace(
    "timeouts: { step: 5, rollout: 60 }",
    "timeouts: { step: 3, rollout: 60 }",
  );
  assert.match(manifest, /step: 3/);
  writeFileSync(path.join(dir, "environment.yaml"), manifest);
  const check = {
    "tests_hidden/check.py": `import sys, time\ntime.sleep(${verifySleep})\nsys.exit(0 if open('greet.txt').read().strip() == 'hello world' else 1)\n`,
  };
  const task = (id: string) => ({
    id,
    prompt: "Make greet.txt say 'hello world', then submit 42.",
    files: { "greet.txt": "hello\n" },
    tests: { files: check },
    target: "42",
    solution: {
      tool_calls: [
        { name: "slow", arguments: { seconds: 1.5 } },
        { name: "put", arguments: { path: "greet.txt", text: "hello world\n" } },
      ],
      answer: "42",
    },
  });
  writeFileSync(path.join(dir, "tasks.jsonl"), `${[task("a"), task("b")].map((t) => JSON.stringify(t)).join("\n")}\n`);
  const { env, problems } = loadEnvironment(dir);
  if (!env) throw new Error(JSON.stringify(problems));
  return env;
}

/** Hooks that do `fault` to the sandbox of the first rollout once its slow call has started. */
function faultOnce(fault: (sb: Sandbox) => Promise<void>): { hooks: RolloutHooks; done: Promise<void> } {
  let fired = false;
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  const hooks: RolloutHooks = {
    async beforeToolCall(call, sandbox) {
      if (call.name === "slow" && !fired) {
        fired = true;
        const sb = await sandbox();
        setTimeout(() => void fault(sb).then(resolve, resolve), 500);
      }
      return call;
    },
  };
  return { hooks, done };
}

async function faultyRun(provider: SandboxProvider, backend: "docker" | "process", fault: (sb: Sandbox) => Promise<void>) {
  const env = slowEnv();
  const runsDir = tmp("rlenv-lost-runs-");
  const clean = await runEnvironment({
    env,
    config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: backend },
    runsDir,
    sandboxProvider: provider,
  });
  assert.equal(clean.summary.mean_reward, 1);
  const f = faultOnce(fault);
  const r = await runEnvironment({
    env,
    config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: backend },
    runsDir,
    sandboxProvider: provider,
    hooks: f.hooks,
    infraBackoff: { baseMs: 10, maxMs: 10 },
  });
  await f.done;
  return { clean, r };
}

/** What every faulty run must show: one infra failure kept apart, retried, and the clean run's result. */
function assertRetriedToCleanResult(
  clean: Awaited<ReturnType<typeof runEnvironment>>,
  r: Awaited<ReturnType<typeof runEnvironment>>,
  lostPattern: RegExp,
) {
  assert.deepEqual(
    r.rollouts.map((x) => [x.task, x.status, x.reward]),
    clean.rollouts.map((x) => [x.task, "completed", 1]),
  );
  assert.equal(r.summary.mean_reward, clean.summary.mean_reward);
  assert.deepEqual(r.summary.pass_at_k, clean.summary.pass_at_k);
  assert.equal(r.summary.infra_errors, undefined);
  const kept = readdirSync(path.join(r.runDir, "attempts"));
  assert.equal(kept.length, 1, `one failed try kept: ${kept.join(", ")}`);
  const tried = events(path.join(r.runDir, "attempts", kept[0]!));
  const end = ofType(tried, "end")[0]!;
  assert.equal(end.status, "error");
  assert.equal(end.reward, null);
  assert.equal(ofType(tried, "reward").length, 0, "a lost sandbox is never scored");
  const err = ofType(tried, "error")[0]!;
  assert.equal(err.where, "sandbox");
  assert.equal(err.infra, true);
  assert.match(err.message, lostPattern);
  const retried = r.rollouts.find((x) => kept[0]!.startsWith(`${x.rolloutId}.try1`))!;
  assert.equal(retried.attempts, 2);
  const start = ofType(events(retried.file), "start")[0]!;
  assert.equal(start.attempt, 2);
  assert.deepEqual(
    start.previous_attempts?.map((p) => p.file),
    [`attempts/${kept[0]}`],
  );
}

let docker: SandboxProvider | undefined;
after(async () => {
  await docker?.shutdown();
});

test("docker: a container killed mid-rollout is an infra error, retried in a fresh sandbox, and the run scores as a clean one", {
  skip: skipDocker,
}, async () => {
  docker ??= await createSandboxProvider({ backend: "docker" });
  const engine = new Docker();
  const { clean, r } = await faultyRun(docker, "docker", async (sb) => {
    await engine.getContainer(sb.id).kill();
  });
  assertRetriedToCleanResult(clean, r, /lost mid-rollout.*(exited|gone|agent stopped)/);
});

test("docker: a paused container is told from the agent's slow command: infra error, retried, clean result", {
  skip: skipDocker,
}, async () => {
  docker ??= await createSandboxProvider({ backend: "docker" });
  const engine = new Docker();
  let paused: string | undefined;
  try {
    const { clean, r } = await faultyRun(docker, "docker", async (sb) => {
      paused = sb.id;
      await engine.getContainer(sb.id).pause();
    });
    assertRetriedToCleanResult(clean, r, /lost mid-rollout.*(paused|did not answer)/);
  } finally {
    if (paused) {
      await engine
        .getContainer(paused)
        .unpause()
        .catch(() => {});
      await engine
        .getContainer(paused)
        .remove({ force: true, v: true })
        .catch(() => {});
    }
  }
});

test("docker: a container killed while the verifier runs in it is an infra error, not the verifier's zero: retried, clean result", {
  skip: skipDocker,
}, async () => {
  docker ??= await createSandboxProvider({ backend: "docker" });
  const engine = new Docker();
  const env = slowEnv(2);
  const runsDir = tmp("rlenv-lost-runs-");
  const clean = await runEnvironment({
    env,
    config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: "docker" },
    runsDir,
    sandboxProvider: docker,
  });
  assert.equal(clean.summary.mean_reward, 1);
  let fired = false;
  let current: Sandbox | undefined;
  let killed: Promise<void> = Promise.resolve();
  const hooks: RolloutHooks = {
    async beforeToolCall(call, sandbox) {
      current = await sandbox();
      return call;
    },
    onEvent(e) {
      // The agent has submitted: the hidden check (sleeping 2 s) is what runs next.
      if (e.type === "observation" && e.name === "submit" && !fired && current) {
        fired = true;
        const id = current.id;
        killed = new Promise((resolve) => setTimeout(() => void engine.getContainer(id).kill().then(resolve, resolve), 800));
      }
    },
  };
  const r = await runEnvironment({
    env,
    config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: "docker" },
    runsDir,
    sandboxProvider: docker,
    hooks,
    infraBackoff: { baseMs: 10, maxMs: 10 },
  });
  await killed;
  assertRetriedToCleanResult(clean, r, /lost mid-rollout.*(exited|gone|agent stopped)/);
});

test("docker: a run whose sandboxes keep dying ends its rollouts as infra errors, kept out of the mean and the chat export", {
  skip: skipDocker,
}, async () => {
  docker ??= await createSandboxProvider({ backend: "docker" });
  const engine = new Docker();
  const env = slowEnv();
  const hooks: RolloutHooks = {
    async beforeToolCall(call, sandbox) {
      if (call.name === "slow") {
        const sb = await sandbox();
        setTimeout(
          () =>
            void engine
              .getContainer(sb.id)
              .kill()
              .catch(() => {}),
          500,
        );
      }
      return call;
    },
  };
  const r = await runEnvironment({
    env,
    config: { policy: { kind: "oracle" }, tasks: ["a"], concurrency: 1, sandbox: "docker", infra_retries: 1 },
    runsDir: tmp("rlenv-lost-runs-"),
    sandboxProvider: docker,
    hooks,
    infraBackoff: { baseMs: 10, maxMs: 10 },
  });
  assert.deepEqual(
    r.rollouts.map((x) => [x.status, x.infra, x.reward, x.attempts]),
    [["error", true, null, 2]],
  );
  assert.equal(r.summary.infra_errors, 1);
  assert.deepEqual(r.summary.statuses, { infra_error: 1 });
  assert.equal(r.summary.mean_reward, null);
  assert.deepEqual(r.summary.per_task, [{ task: "a", n: 0, passed: 0, mean_reward: null, pass_at_k: {} }]);
  assert.equal(readdirSync(path.join(r.runDir, "attempts")).length, 1);
  assert.deepEqual([...exportChatJsonl(r.runDir)], []);
});

test("process backend: a sandbox whose processes are killed from outside mid-rollout is an infra error, retried, clean result", async (t) => {
  const p = await processProvider();
  if ("skip" in p) return t.skip(p.skip);
  try {
    const { clean, r } = await faultyRun(p.provider, "process", async () => {
      // Every process this test process started for the sandbox (their command lines name its
      // folder): the isolating one and what runs in it. Nothing else of this process is touched.
      for (const pid of sandboxProcesses(process.pid, p.baseDir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    });
    assertRetriedToCleanResult(clean, r, /lost mid-rollout.*killed from outside/);
  } finally {
    await p.provider.shutdown();
  }
});
