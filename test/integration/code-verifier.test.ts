import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Environment } from "../../src/core/model/environment";
import { OraclePolicy } from "../../src/core/policy/oracle";
import type { Policy } from "../../src/core/policy/types";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { backendSkip, loadExample, observations, oracle, rewardEvent, rollOut, scripted, taskById, trajectoryDir } from "./code-rollouts";

/** Run every listed task once with the policy the factory picks; rewards by task id. */
async function rewards(
  env: Environment,
  provider: SandboxProvider,
  backend: "process" | "docker",
  tasks: string[],
  policy: (id: string) => Policy,
): Promise<Map<string, number | null>> {
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-code-verify-"));
  try {
    const { rollouts } = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, tasks, concurrency: 4, sandbox: backend },
      runsDir,
      sandboxProvider: provider,
      policyFactory: ({ task }) => policy(task.id),
    });
    return new Map(rollouts.map((r) => [r.task, r.reward]));
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
}

for (const backend of ["process", "docker"] as const) {
  describe(`code tests verifier on the ${backend} backend`, async () => {
    const skip = await backendSkip(backend);
    let provider: SandboxProvider;
    const traj = trajectoryDir();
    before(async () => {
      if (!skip) provider = await createSandboxProvider({ backend });
    });
    after(async () => {
      if (!skip) await provider.shutdown();
      traj.cleanup();
    });

    test("HumanEval: each canonical solution scores 1 on its own task and 0 on the next task", { skip, timeout: 600_000 }, async () => {
      const env = loadExample("code-humaneval");
      // Every task on the cheap backend; a spread of them where each sandbox costs more.
      const ids = env.tasks.map((t) => t.id).filter((_, i) => backend === "process" || i % 16 === 0);
      const next = (id: string) => env.tasks[(env.tasks.findIndex((t) => t.id === id) + 1) % env.tasks.length]!;
      const own = await rewards(env, provider, backend, ids, (id) => new OraclePolicy(taskById(env, id).solution));
      const swapped = await rewards(env, provider, backend, ids, (id) => new OraclePolicy(next(id).solution));
      for (const id of ids) {
        assert.equal(own.get(id), 1, `${id}: its canonical solution`);
        assert.equal(swapped.get(id), 0, `${id}: the canonical solution of ${next(id).id}`);
      }
    });

    test("hidden tests are copied in only after submit", { skip }, async () => {
      const env = loadExample("code-humaneval");
      const task = taskById(env, "humaneval-000");
      const r = await rollOut(
        env,
        task,
        scripted([{ name: "bash", arguments: { command: "ls -A; cat _hidden_check.py" } }]),
        provider,
        traj.dir,
      );
      const ls = String(observations(r.events)[0]?.output);
      assert.match(ls, /solution\.py/);
      assert.doesNotMatch(ls, /check\(/, "the agent cannot read the hidden check");
      assert.match(ls, /No such file or directory/);
      assert.equal(r.reward, 0);
    });

    test("a link planted where a hidden test goes is replaced, never written through", { skip }, async () => {
      const hostDir = mkdtempSync(path.join(tmpdir(), "rlenv-host-target-"));
      const target = path.join(hostDir, "target.py");
      writeFileSync(target, "host file\n");
      try {
        const env = loadExample("code-humaneval");
        const task = taskById(env, "humaneval-000");
        const plant = scripted([
          { name: "write_file", arguments: { path: "solution.py", content: task.solution?.files?.["solution.py"] ?? "" } },
          { name: "bash", arguments: { command: `ln -s ${target} _hidden_check.py; ln -s /usr/lib/os-release test_examples.py` } },
        ]);
        const r = await rollOut(env, task, plant, provider, traj.dir);
        assert.equal(readFileSync(target, "utf8"), "host file\n", "the host file is untouched");
        assert.equal(r.reward, 1, "the real hidden check ran on the correct solution");
      } finally {
        rmSync(hostDir, { recursive: true, force: true });
      }
    });

    test("HumanEval: code that ends the process with status 0 before check() returns scores 0 (the sentinel is missing)", {
      skip,
    }, async () => {
      const env = loadExample("code-humaneval");
      const task = taskById(env, "humaneval-000");
      const body = task.files?.["solution.py"] ?? "";
      // At import (os._exit skips every handler; sys.exit raises through the import) and from inside the function under test.
      const cheats = [
        `import os\n${body}    pass\nos._exit(0)\n`,
        `import sys\n${body}    pass\nsys.exit(0)\n`,
        `import os\n${body}    os._exit(0)\n`,
      ];
      for (const content of cheats) {
        const r = await rollOut(
          env,
          task,
          scripted([{ name: "write_file", arguments: { path: "solution.py", content } }]),
          provider,
          traj.dir,
        );
        const c = rewardEvent(r.events)?.components[0];
        assert.equal(r.reward, 0, content);
        // The submission runs in its own process, so its early exit ends that process alone: the check
        // sees it end before answering (the test process never exits 0 early, so the sentinel stays unprinted).
        assert.match(c?.reason ?? "", /the submission ended \(exit status 0\) before has_close_elements returned/);
        assert.notEqual(((c?.details ?? {}) as Record<string, unknown>).exit_code, 0, "the check itself failed");
      }
      const honest = await rollOut(env, task, oracle(task), provider, traj.dir);
      assert.equal(honest.reward, 1, "the canonical solution still prints the sentinel and passes");
    });

    test("a syntax error is named as such in the reward record", { skip }, async () => {
      const he = loadExample("code-humaneval");
      const t = taskById(he, "humaneval-000");
      const broken = `${t.solution?.files?.["solution.py"]}\n    return (\n`;
      const r = await rollOut(
        he,
        t,
        scripted([{ name: "write_file", arguments: { path: "solution.py", content: broken } }]),
        provider,
        traj.dir,
      );
      const c = rewardEvent(r.events)?.components[0];
      assert.equal(c?.score, 0);
      assert.match(c?.reason ?? "", /^SyntaxError in \/workspace\/solution\.py line \d+: .* \(0\/1 tests passed\)$/);
      assert.match(String(((c?.details ?? {}) as Record<string, unknown>).compile_error), /^SyntaxError/);

      const bf = loadExample("code-repo-bugfix");
      const bt = taskById(bf, "rpn-calculator");
      const r2 = await rollOut(
        bf,
        bt,
        scripted([{ name: "write_file", arguments: { path: "rpn/tokenizer.py", content: "def tokenize(expr:\n" } }]),
        provider,
        traj.dir,
      );
      const c2 = rewardEvent(r2.events)?.components[0];
      assert.equal(c2?.score, 0);
      assert.match(c2?.reason ?? "", /^SyntaxError in \/workspace\/rpn\/tokenizer\.py line 1: /);

      const st = loadExample("code-stdio");
      const r3 = await rollOut(
        st,
        taskById(st, "fizzbuzz"),
        scripted([{ name: "write_file", arguments: { path: "solution.py", content: "print(\n" } }]),
        provider,
        traj.dir,
      );
      const c3 = rewardEvent(r3.events)?.components[0];
      assert.match(c3?.reason ?? "", /^SyntaxError in \/workspace\/solution\.py line 1: .*\(0\/4 tests passed\)$/);
    });

    test("stdio: the fraction of cases passed, with each case's outcome and stderr recorded", { skip }, async () => {
      const env = loadExample("code-stdio");
      const task = taskById(env, "fibonacci");
      // Hidden cases n = 0, 50, 90, 2, 37: right up to about n = 70 only (float rounding), and crashes on n = 0 with a message on stderr.
      const program =
        "import sys\nn = int(input())\nif n == 0:\n    sys.exit('no zero please')\nphi = (1 + 5 ** 0.5) / 2\nprint(round(phi ** n / 5 ** 0.5))\n";
      const r = await rollOut(
        env,
        task,
        scripted([{ name: "write_file", arguments: { path: "solution.py", content: program } }]),
        provider,
        traj.dir,
      );
      const c = rewardEvent(r.events)?.components[0];
      assert.equal(c?.score, 3 / 5);
      assert.equal(c?.reason, "3/5 tests passed");
      const cases = (
        (c?.details ?? { cases: [] }) as { cases: Array<{ passed: boolean; reason?: string; stderr: string; expected: string }> }
      ).cases;
      assert.deepEqual(
        cases.map((x) => [x.passed, x.reason ?? null]),
        [
          [false, "exit code 1"],
          [true, null],
          [false, "wrong output"],
          [true, null],
          [true, null],
        ],
      );
      assert.equal(cases[0]?.stderr.trim(), "no zero please");
    });

    test("repo-bugfix: fixing one of the two files is not enough", { skip }, async () => {
      const env = loadExample("code-repo-bugfix");
      const task = taskById(env, "calendar-days");
      const half = scripted([
        {
          name: "edit_file",
          arguments: { path: "calendar_utils/days.py", old_string: "MONTH_DAYS[month]", new_string: "MONTH_DAYS[month - 1]" },
        },
      ]);
      const r = await rollOut(env, task, half, provider, traj.dir);
      const c = rewardEvent(r.events)?.components[0];
      assert.equal(r.reward, 0);
      assert.match(c?.reason ?? "", /^\d+\/\d+ tests passed/);
      assert.ok(
        ((c?.details ?? { failures: [] }) as { failures: string[] }).failures.some((f) =>
          /test_is_leap_centuries|test_february_of_century_years/.test(f),
        ),
      );
    });
  });
}
