/**
 * The screen's replay: recorded runs of the verifier's commands are scored by the real
 * verifiers through a replaying sandbox, so the sentinel, a timeout, output cut at the
 * sandbox's limit and pytest's own rules decide as they do in a rollout; what the recording
 * cannot answer is no verdict (null), and only command-run tests verifiers are screened.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { probeActions, replayScore, type ScreenRun, screenPlan } from "../../src/core/audit/screen";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { makeEnvDir } from "../support/tmp-env";

const cleanups: Array<() => void> = [];
after(() => {
  for (const c of cleanups) c();
});

function envWith(reward: string, output = 1000) {
  const task = {
    id: "t",
    prompt: "Do it.",
    tests: { files: { "_hidden.py": "print(1)\n" } },
    solution: { files: { "solution.py": "x = 1\n" } },
  };
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": `name: replay\ndomain: code\nsandbox:\n  workdir: /workspace\n  limits: { output: ${output} }\ntasks: tasks.jsonl\ntools: [bash, submit]\nreward:\n${reward}`,
    "tasks.jsonl": `${JSON.stringify(task)}\n`,
  });
  cleanups.push(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const t = env.tasks[0];
  assert.ok(t);
  return { env, task: t };
}

const run = (over: Partial<ScreenRun>): ScreenRun => {
  const stdout = over.stdout ?? "";
  const stderr = over.stderr ?? "";
  return {
    status: "ok",
    exitCode: 0,
    stdout,
    stderr,
    stdoutBytes: Buffer.byteLength(stdout),
    stderrBytes: Buffer.byteLength(stderr),
    keptBytes: Buffer.byteLength(stdout) + Buffer.byteLength(stderr),
    durationMs: 5,
    report: null,
    ...over,
  };
};
const where = { backend: "process" as const, workdir: "/workspace" };

test("exit-code with a sentinel: the screen's token stands for the verifier's own; missing, timed out or cut off scores 0", async () => {
  const { env, task } = envWith(
    "  - type: tests\n    command: python3 _hidden.py\n    format: exit-code\n    sentinel: true\n    timeout: 10\n",
  );
  const plan = await screenPlan(env, task);
  assert.ok(!("unscreenable" in plan), JSON.stringify(plan));
  assert.deepEqual(plan.steps[0]?.argv, ["python3", "_hidden.py"]);
  assert.equal(plan.steps[0]?.stdin, `${plan.token}\n`);
  // The code domain's verifier stops the tests a little before its deadline: the screen's timeout is that budget.
  assert.equal(plan.steps[0]?.timeout_ms, 8000);
  const score = (r: ScreenRun) => replayScore(env, task, plan, [r], where);
  assert.equal(await score(run({ stdout: `ok\n${plan.token}\n` })), 1);
  assert.equal(await score(run({ stdout: "ok\n" })), 0, "no sentinel");
  assert.equal(await score(run({ stdout: `${plan.token}\n`, exitCode: 1 })), 0);
  assert.equal(await score(run({ status: "timeout", exitCode: null, stdout: `${plan.token}\n` })), 0);
  assert.equal(await score(run({ status: "killed", exitCode: null })), 0);
  // A flood past the sandbox's limit: the sentinel printed after it is cut off, as the sandbox cuts it.
  const kept = "x".repeat(1000);
  assert.equal(await score(run({ stdout: kept, stdoutBytes: 5000 + plan.token.length, keptBytes: 1000 })), 0);
  // Both streams past the limit: where the sandbox would cut depends on timing, so no verdict.
  assert.equal(
    await score(run({ stdout: kept.slice(500), stderr: kept.slice(500), stdoutBytes: 3000, stderrBytes: 3000, keptBytes: 1000 })),
    null,
  );
});

test("pytest format: the verifier's own rules decide, a forged summary under a failing exit included", async () => {
  const { env, task } = envWith('  - type: tests\n    command: python3 -m pytest -q "tests/"\n    format: pytest\n    timeout: 10\n');
  const plan = await screenPlan(env, task);
  assert.ok(!("unscreenable" in plan));
  assert.deepEqual(plan.steps[0]?.argv, ["bash", "-c", 'python3 -m pytest -q "tests/"']);
  assert.equal(plan.steps[0]?.stdin, null);
  const score = (r: ScreenRun) => replayScore(env, task, plan, [r], where);
  assert.equal(await score(run({ stdout: "3 passed in 0.01s\n" })), 1);
  // Partial credit, as the verifier gives it (mode: fraction by default).
  assert.equal(await score(run({ stdout: "1 failed, 2 passed in 0.01s\n", exitCode: 1 })), 2 / 3);
  assert.equal(await score(run({ stdout: "3 passed in 0.01s\n", exitCode: 1 })), 0, "pytest did not print that summary");
  // Fewer runs than the verifier asks for: no verdict.
  assert.equal(await replayScore(env, task, plan, [], where), null);
});

test("only command-run tests verifiers are screened", async () => {
  for (const reward of [
    '  - type: script\n    command: python3 -c "print(1)"\n',
    "  - type: tests\n    program: python3 solution.py\n    format: stdio\n",
  ]) {
    const { env, task } = envWith(reward);
    assert.ok("unscreenable" in (await screenPlan(env, task)), reward);
  }
});

test("a probe's turns become screen actions only when they are bash and write_file in the workdir, then submit", () => {
  const turn = (name: string, args: unknown) => ({ calls: [{ name, arguments: JSON.stringify(args) }] });
  assert.deepEqual(
    probeActions([turn("bash", { command: "rm -f x" }), turn("write_file", { path: "a/b.py", content: "1" }), turn("submit", {})], 20_000),
    [
      { argv: ["bash", "-c", "rm -f x"], timeout_ms: 20_000 },
      { write: "a/b.py", text: "1" },
    ],
  );
  assert.equal(probeActions([turn("write_file", { path: "../x.py", content: "1" }), turn("submit", {})], 20_000), null);
  assert.equal(probeActions([turn("run_tests", {}), turn("submit", {})], 20_000), null);
  assert.equal(probeActions([turn("bash", { command: "true" })], 20_000), null, "no submit");
});
