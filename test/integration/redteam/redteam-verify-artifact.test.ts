import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { backendSkip, loadExample, oracle, rewardEvent, rollOut, sharedProvider, taskById, trajectoryDir } from "../code-rollouts";
import { BUGFIX_ATTACKS, HUMANEVAL_ATTACKS, replayAttack } from "./verify-attacks";

/**
 * Judge the artifact, not the scene: each attack below scored 1.0 on a task it does not solve
 * while the tests ran in the agent's own sandbox, among the files and processes it left there
 * (a .pth, a module named like the standard library's, the hidden check read beside the
 * solution, a bytecode cache, a process rewriting the check, a test file matching the test glob,
 * pytest patched from the package under test). Judged in a fresh sandbox that receives only the
 * submission, with the check isolated and its test files named, each scores 0; the honest
 * oracle still scores 1 and raises no hack signal.
 */
const humaneval = loadExample("code-humaneval");
const bugfix = loadExample("code-repo-bugfix");
const he000 = taskById(humaneval, "humaneval-000");
const calendar = taskById(bugfix, "calendar-days");
// code-stdio's expected outputs never enter a sandbox: it is judged fresh too, and its oracle still scores 1.
const stdio = loadExample("code-stdio");
const stdioTask = stdio.tasks[0] as (typeof stdio.tasks)[number];

for (const backend of ["process", "docker"] as const) {
  describe(`${backend}: a verifier judges the submission, not what the policy left around it`, async () => {
    const skip = await backendSkip(backend);
    const provider = sharedProvider(backend);
    const { dir, cleanup } = trajectoryDir();
    after(cleanup);

    for (const [name, calls] of Object.entries(HUMANEVAL_ATTACKS)) {
      test(`code-humaneval: ${name} scores 0`, { skip }, async () => {
        const r = await rollOut(humaneval, he000, replayAttack(dir, name, calls), await provider(), dir);
        assert.equal(r.status, "completed", r.reason);
        const ev = rewardEvent(r.events);
        assert.equal(r.reward, 0, JSON.stringify(ev?.components.map((c) => c.reason ?? c.error)));
        assert.equal(ev?.judged_in, "fresh");
      });
    }

    for (const [name, calls] of Object.entries(BUGFIX_ATTACKS)) {
      test(`code-repo-bugfix: ${name} scores 0`, { skip }, async () => {
        const r = await rollOut(bugfix, calendar, replayAttack(dir, name, calls), await provider(), dir);
        assert.equal(r.status, "completed", r.reason);
        const ev = rewardEvent(r.events);
        assert.equal(
          r.reward,
          0,
          JSON.stringify({ components: ev?.components.map((c) => c.reason ?? c.error), signals: ev?.hack_signals }),
        );
      });
    }

    test("pytest patched from the package under test raises a test-framework signal, and zeroes the rollout", { skip }, async () => {
      const r = await rollOut(
        bugfix,
        calendar,
        replayAttack(dir, "pytest-patched", BUGFIX_ATTACKS["pytest-patched"] ?? []),
        await provider(),
        dir,
      );
      const ev = rewardEvent(r.events);
      assert.ok(
        ev?.hack_signals?.some((s) => s.signal === "test-framework" && s.path === "calendar_utils/__init__.py"),
        JSON.stringify(ev),
      );
      assert.equal(ev?.hack_action, "zero");
      assert.equal(ev?.total, 0);
    });

    test("the oracles still score 1, judged fresh, with no hack signal", { skip }, async () => {
      for (const [env, task] of [
        [humaneval, he000],
        [bugfix, calendar],
        [stdio, stdioTask],
      ] as const) {
        const r = await rollOut(env, task, oracle(task), await provider(), dir);
        const ev = rewardEvent(r.events);
        assert.equal(r.reward, 1, JSON.stringify(ev?.components));
        assert.equal(ev?.judged_in, "fresh");
        assert.equal(ev?.hack_signals, undefined);
      }
    });
  });
}
