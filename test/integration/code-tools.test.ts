import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { CODE_TOOLS } from "../../src/core/domains/code";
import type { ToolContext, ToolResult } from "../../src/core/model/domain";
import { sandboxFiles } from "../../src/core/model/file-content";
import type { Environment } from "../../src/core/model/environment";
import type { LoadedTask } from "../../src/core/model/environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { backendSkip, loadExample, taskById } from "./code-rollouts";

const text = (r: ToolResult) => (typeof r.output === "string" ? r.output : JSON.stringify(r.output));

for (const backend of ["process", "docker"] as const) {
  describe(`code tools on the ${backend} backend`, async () => {
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

    /** A fresh sandbox seeded like the engine seeds it, and a caller for the code tools. */
    async function session(env: Environment, task: LoadedTask, stepMs = 10_000) {
      const sb = await provider.acquire(sandboxRequest(env));
      open.push(sb);
      await sb.reset(sandboxFiles({ ...(task.files ?? {}), ...(task.visible_tests ?? {}) }));
      const ctx: ToolContext = {
        env,
        task,
        sandbox: async () => sb,
        state: new Map(),
        signal: new AbortController().signal,
        timeoutMs: stepMs,
      };
      const call = (name: string, args: Record<string, unknown> = {}) => {
        const tool = CODE_TOOLS.find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        return tool.run(args, ctx);
      };
      return { sb, call };
    }

    const bugfix = () => loadExample("code-repo-bugfix");

    test("bash returns stdout, stderr and the exit code, and the diff of files it changed", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "rpn-calculator"));
      const r = await call("bash", { command: "echo out; echo err >&2; echo made > made.txt; exit 3" });
      assert.equal(r.exitCode, 3);
      assert.equal(r.status, "ok");
      assert.match(text(r), /^out\n\[stderr\]\nerr\n\[exit code 3\]$/);
      assert.deepEqual(r.artifacts?.diff, [{ path: "made.txt", status: "added", before: null, after: "made\n" }]);
      const quiet = await call("bash", { command: "cat made.txt" });
      assert.equal(quiet.artifacts, undefined, "a command that changes nothing carries no diff");
      const edit = await call("bash", { command: "sed -i 's/made/remade/' made.txt && rm rpn/__init__.py" });
      assert.deepEqual(
        edit.artifacts?.diff?.map((d) => [d.path, d.status, d.before?.slice(0, 5) ?? null, d.after]),
        [
          ["made.txt", "modified", "made\n", "remade\n"],
          ["rpn/__init__.py", "deleted", "from ", null],
        ],
      );
    });

    test("bash kills a command at its timeout and says so", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "rpn-calculator"));
      const t0 = performance.now();
      const r = await call("bash", { command: "while :; do :; done", timeout: 1 });
      assert.equal(r.status, "timeout");
      assert.equal(r.exitCode, null);
      assert.match(text(r), /^\[timeout: .+\]$/);
      assert.ok(performance.now() - t0 < 8000, "the loop was stopped near its 1 s timeout");
      const next = await call("bash", { command: "echo still here" });
      assert.match(text(next), /^still here\n\[exit code 0\]$/);
    });

    test("bash shows a Python syntax error as such", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "rpn-calculator"));
      await call("write_file", { path: "rpn/tokenizer.py", content: "def tokenize(expr:\n    return []\n" });
      const r = await call("bash", { command: "python3 -c 'import rpn'" });
      assert.equal(r.exitCode, 1);
      assert.match(text(r), /\[SyntaxError in \/.*rpn\/tokenizer\.py line 1: /);
    });

    test("read_file reads whole files and line ranges, and refuses what it cannot show", { skip }, async () => {
      const env = bugfix();
      const task = taskById(env, "calendar-days");
      const { call } = await session(env, task);
      const whole = await call("read_file", { path: "calendar_utils/leap.py" });
      assert.equal(text(whole), task.files?.["calendar_utils/leap.py"]);
      const part = await call("read_file", { path: "/workspace/calendar_utils/days.py", start_line: 3, end_line: 4 });
      assert.equal(
        text(part),
        "[calendar_utils/days.py: lines 3-4 of 18]\n# Days in each month of a common year, January first.\nMONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]",
      );
      assert.match(
        text(await call("read_file", { path: "calendar_utils/days.py", start_line: 99 })),
        /^error: start_line 99 is past the end .* \(18 lines\)$/,
      );
      assert.match(text(await call("read_file", { path: "nope.py" })), /^error: no file 'nope\.py'/);
      assert.match(
        text(await call("read_file", { path: "../../etc/passwd" })),
        /^error: path '\.\.\/\.\.\/etc\/passwd' is outside the workdir/,
      );
      assert.match(text(await call("read_file", {})), /^error: missing argument 'path'/);
      await call("bash", { command: "printf 'a\\0b' > blob.bin" });
      assert.match(text(await call("read_file", { path: "blob.bin" })), /^error: 'blob\.bin' is a binary file \(3 bytes\)/);
    });

    test("a link in the workdir does not let the file tools read host files", { skip }, async () => {
      const hostDir = mkdtempSync(path.join(tmpdir(), "rlenv-host-secret-"));
      const secret = path.join(hostDir, "secret.txt");
      writeFileSync(secret, "host secret\n");
      try {
        const env = bugfix();
        const { call } = await session(env, taskById(env, "rpn-calculator"));
        await call("bash", { command: `ln -s ${secret} leak.txt; ln -s ${hostDir} leakdir` });
        for (const p of ["leak.txt", "leakdir/secret.txt"]) {
          const r = await call("read_file", { path: p });
          assert.doesNotMatch(text(r), /host secret/, `${p} must not reach the host file`);
        }
        const w = await call("write_file", { path: "leakdir/planted.txt", content: "planted" });
        assert.equal(existsSync(path.join(hostDir, "planted.txt")), false, `write through a link reached the host: ${text(w)}`);
      } finally {
        rmSync(hostDir, { recursive: true, force: true });
      }
    });

    test("write_file creates folders and reports added and modified files", { skip }, async () => {
      const env = bugfix();
      const task = taskById(env, "cart-coupons");
      const { call } = await session(env, task);
      const created = await call("write_file", { path: "notes/deep/todo.txt", content: "one\ntwo\n" });
      assert.equal(text(created), "created notes/deep/todo.txt (2 lines, 8 bytes)");
      assert.deepEqual(created.artifacts?.diff, [{ path: "notes/deep/todo.txt", status: "added", before: null, after: "one\ntwo\n" }]);
      const over = await call("write_file", { path: "shop/cart.py", content: "# emptied\n" });
      assert.equal(over.artifacts?.diff?.[0]?.status, "modified");
      assert.equal(over.artifacts?.diff?.[0]?.before, task.files?.["shop/cart.py"]);
      assert.match(text(await call("bash", { command: "cat notes/deep/todo.txt shop/cart.py" })), /^one\ntwo\n# emptied\n/);
      assert.match(text(await call("write_file", { path: "/tmp/x.txt", content: "x" })), /outside the workdir/);
      assert.match(text(await call("write_file", { path: "a.txt" })), /missing argument 'content'/);
    });

    test("edit_file replaces one exact occurrence and explains absent or repeated strings", { skip }, async () => {
      const env = bugfix();
      const task = taskById(env, "rpn-calculator");
      const { call } = await session(env, task);
      const r = await call("edit_file", {
        path: "rpn/evaluator.py",
        old_string: "            a = stack.pop()\n            b = stack.pop()\n",
        new_string: "            b = stack.pop()\n            a = stack.pop()\n",
      });
      assert.equal(text(r), "edited rpn/evaluator.py: replaced 1 occurrence at line 18");
      assert.equal(r.artifacts?.diff?.[0]?.status, "modified");
      assert.match(r.artifacts?.diff?.[0]?.after ?? "", /b = stack\.pop\(\)\n {12}a = stack\.pop\(\)/);
      const absent = await call("edit_file", { path: "rpn/evaluator.py", old_string: "a = stack.pop()  # nowhere", new_string: "x" });
      assert.equal(absent.status, "error");
      assert.match(text(absent), /old_string was not found in 'rpn\/evaluator\.py'/);
      const repeated = await call("edit_file", { path: "rpn/evaluator.py", old_string: "stack.pop()", new_string: "stack.pop(-1)" });
      assert.match(text(repeated), /occurs 2 times in 'rpn\/evaluator\.py' \(lines 18, 19\)/);
      const all = await call("edit_file", {
        path: "rpn/evaluator.py",
        old_string: "stack.pop()",
        new_string: "stack.pop(-1)",
        replace_all: true,
      });
      assert.match(text(all), /replaced 2 occurrences at lines 18, 19/);
      assert.match(text(await call("edit_file", { path: "missing.py", old_string: "a", new_string: "b" })), /no file 'missing\.py'/);
      assert.match(
        text(await call("edit_file", { path: "rpn/evaluator.py", old_string: "", new_string: "b" })),
        /'old_string' must not be empty/,
      );
    });

    test("list_files lists the tree with folders marked and caches left out", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "slugify-accents"));
      await call("bash", { command: "python3 -c 'import slugkit' && ls slugkit/__pycache__ >/dev/null" });
      const r = await call("list_files", {});
      assert.equal(
        text(r),
        ["slugkit/", "slugkit/__init__.py", "slugkit/normalize.py", "slugkit/slugify.py", "tests/", "tests/test_slug.py"].join("\n"),
      );
      assert.equal(text(await call("list_files", { path: "tests" })), "test_slug.py");
      assert.equal(text(await call("list_files", { depth: 1 })), "slugkit/\ntests/");
      assert.match(text(await call("list_files", { path: "nowhere" })), /no folder 'nowhere'/);
      assert.match(text(await call("list_files", { path: "tests/test_slug.py" })), /is a file, not a folder/);
      assert.match(text(await call("list_files", { path: "/" })), /outside the workdir/);
    });

    test("run_tests runs the visible pytest tests, restored if the agent edited them", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "calendar-days"), 60_000);
      const r = await call("run_tests");
      assert.equal(r.exitCode, 0, text(r));
      assert.match(text(r), /2 passed/);
      await call("write_file", { path: "tests/test_calendar.py", content: "def test_rigged():\n    assert False\n" });
      const again = await call("run_tests");
      assert.match(text(again), /2 passed/, "the real visible tests ran, not the agent's edit");
      assert.equal(text(again).includes("_hidden"), false, "hidden tests are not in the workdir before submit");
    });

    test("run_tests judges stdio examples case by case", { skip }, async () => {
      const env = loadExample("code-stdio");
      const task = taskById(env, "fizzbuzz");
      const { call } = await session(env, task);
      const before = await call("run_tests");
      assert.equal(before.exitCode, 1);
      assert.match(text(before), /^0\/2 cases passed\ncase 1: FAILED \(wrong output\)/);
      await call("write_file", { path: "solution.py", content: "n = int(input())\nfor i in range(1, n + 1):\n    print(i)\n" });
      const partly = await call("run_tests");
      assert.match(
        text(partly),
        /case 1: FAILED \(wrong output\)\n {2}input: {4}"5\\n"\n {2}expected: "1\\n2\\nFizz\\n4\\nBuzz\\n"\n {2}got: {6}"1\\n2\\n3\\n4\\n5\\n"/,
      );
      await call("write_file", { path: "solution.py", content: task.solution?.files?.["solution.py"] ?? "" });
      const good = await call("run_tests");
      assert.equal(good.exitCode, 0);
      assert.equal(good.artifacts?.cases?.length, 2);
      await call("write_file", { path: "solution.py", content: "import sys\nprint(undefined_name)\n" });
      const crash = await call("run_tests");
      assert.match(text(crash), /FAILED \(exit code 1\)[\s\S]*NameError: name 'undefined_name' is not defined/);
      await call("write_file", { path: "solution.py", content: "print(\n" });
      assert.match(text(await call("run_tests")), /^\[SyntaxError in \/workspace\/solution\.py line 1: .*\]\n0\/2 cases passed/);
    });

    test("run_tests runs HumanEval's docstring examples, and says when a task has none", { skip }, async () => {
      const env = loadExample("code-humaneval");
      const withExamples = taskById(env, "humaneval-000");
      const s = await session(env, withExamples);
      assert.match(text(await s.call("run_tests")), /0 of 2 docstring examples passed[\s\S]*\[exit code 1\]/);
      await s.call("write_file", { path: "solution.py", content: withExamples.solution?.files?.["solution.py"] ?? "" });
      assert.match(text(await s.call("run_tests")), /2 of 2 docstring examples passed\n\[exit code 0\]$/);
      const bare = env.tasks.find((t) => !t.visible_tests);
      assert.ok(bare, "some HumanEval prompts have no >>> examples");
      const b = await session(env, bare);
      assert.match(text(await b.call("run_tests")), /^error: this task has no visible tests/);
    });

    test("submit ends the rollout with the summary as the answer", { skip }, async () => {
      const env = bugfix();
      const { call } = await session(env, taskById(env, "rpn-calculator"));
      assert.deepEqual((await call("submit", { summary: "fixed" })).submit, { answer: "fixed" });
      assert.deepEqual((await call("submit")).submit, { answer: undefined });
    });
  });
}
