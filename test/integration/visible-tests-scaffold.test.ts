import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { CODE_TOOLS } from "../../src/core/domains/code";
import type { ToolResult } from "../../src/core/model/domain";
import { sandboxFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { staticProblems } from "../../src/core/app/static-problems";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { rlenv } from "../support/cli";
import { backendSkip } from "./code-rollouts";

const text = (r: ToolResult) => (typeof r.output === "string" ? r.output : JSON.stringify(r.output));

/** `rlenv new code`'s scaffold (hidden tests reported as junit) with visible tests added to its task. */
function scaffoldWith(visible: Record<string, string>, metadata?: Record<string, unknown>): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-scaffold-")), "adder");
  const r = rlenv(["new", "code", "adder", "--dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(dir, "tasks.jsonl");
  const task = JSON.parse(readFileSync(file, "utf8").trim()) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify({ ...task, visible_tests: visible, ...(metadata ? { metadata } : {}) })}\n`);
  return dir;
}

const FAILING_PYTEST = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 999\n";

for (const backend of ["process", "docker"] as const) {
  describe(`run_tests on the code scaffold (${backend})`, async () => {
    const skip = await backendSkip(backend);
    let provider: SandboxProvider;
    const open: Sandbox[] = [];
    before(async () => {
      if (!skip) provider = await createSandboxProvider({ backend });
    });
    after(async () => {
      for (const sb of open) await sb.close().catch(() => {});
      if (!skip) await provider.shutdown();
    });

    async function runTests(dir: string, solution: string): Promise<ToolResult> {
      const { env } = loadEnvironment(dir);
      assert.ok(env);
      const task = env.tasks[0]!;
      const sb = await provider.acquire(sandboxRequest(env));
      open.push(sb);
      await sb.reset(sandboxFiles({ ...(task.visible_tests ?? {}), "solution.py": solution }));
      const tool = CODE_TOOLS.find((t) => t.name === "run_tests")!;
      const ctx = { env, task, sandbox: async () => sb, state: new Map(), signal: new AbortController().signal, timeoutMs: 30_000 };
      return tool.run({}, ctx);
    }

    test("a pytest-style visible test runs under pytest although the reward's report is junit: a failing assert fails", {
      skip,
    }, async () => {
      const dir = scaffoldWith({ "test_add.py": FAILING_PYTEST, "check.py": "from solution import add\nassert add(2, 2) == 4\n" });
      const wrong = await runTests(dir, "def add(a, b):\n    return a + b\n");
      assert.notEqual(wrong.exitCode, 0, text(wrong));
      assert.match(text(wrong), /1 failed/);
      // The plain script still runs as a script, and passes.
      assert.match(text(wrong), /== check\.py/);
      const dirOk = scaffoldWith({ "test_add.py": FAILING_PYTEST.replace("999", "3") });
      const right = await runTests(dirOk, "def add(a, b):\n    return a + b\n");
      assert.equal(right.exitCode, 0, text(right));
      assert.match(text(right), /1 passed/);
    });

    test("metadata.test_command wins over the guess", { skip }, async () => {
      const dir = scaffoldWith({ "test_add.py": FAILING_PYTEST }, { test_command: "echo custom-runner; exit 3" });
      const r = await runTests(dir, "def add(a, b):\n    return a + b\n");
      assert.equal(r.exitCode, 3);
      assert.match(text(r), /custom-runner/);
    });
  });
}

test("validate warns where a visible test run as a plain script checks nothing", async () => {
  const dir = scaffoldWith({
    "test_add.py": FAILING_PYTEST,
    "check_add.py": "from solution import add\n\ndef check():\n    assert add(1, 2) == 3\n",
    "smoke.py": "from solution import add\nassert add(1, 2) == 3\n",
  });
  const { env } = loadEnvironment(dir);
  assert.ok(env);
  const warnings = (await staticProblems(env)).filter((p) => p.path.includes("visible_tests"));
  assert.deepEqual(
    warnings.map((p) => [p.severity, p.path]),
    [["warning", 'tasks[0].visible_tests["check_add.py"]']],
  );
  assert.match(
    warnings[0]!.message,
    /runs as a plain script \(python3 check_add\.py\).*exits 0 whatever the solution does.*metadata\.test_command/,
  );
  // And the CLI says it too, without failing validation.
  const r = rlenv(["validate", dir]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout + r.stderr, /warning: tasks\[0\]\.visible_tests\["check_add\.py"\]: runs as a plain script/);
});
