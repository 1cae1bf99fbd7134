import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { sandboxFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { scanSubmission } from "../../src/core/reward/hack-signals";
import { judgedCommand, nameHiddenGlobs } from "../../src/core/reward/judged-command";
import { dropReason, readSubmission } from "../../src/core/reward/submission";
import { summarize } from "../../src/core/runs/summarize";
import { diffFiles, seedMap } from "../../src/core/sandbox/diff";
import { taskSeed } from "../../src/core/sandbox/task-files";

const REPO = path.resolve(import.meta.dirname, "..", "..");

/** A sandbox's diff and reads over an in-memory workdir. */
function fakeWorkdir(seed: Record<string, string>, now: Record<string, string | Buffer>) {
  const current = new Map(Object.entries(now).map(([p, v]) => [p, Buffer.isBuffer(v) ? v : Buffer.from(v)]));
  return {
    diff: async () => diffFiles(seedMap(seed), current),
    readFiles: async (paths: string[]) => Object.fromEntries(paths.map((p) => [p, current.get(p) ?? null])),
  };
}

describe("the submission a judging sandbox receives", () => {
  test("leaves out bytecode, start-up hooks, site folders, modules named like the standard library, and files beside the hidden tests", async () => {
    const seed = { "solution.py": "def f(): pass\n", "tests/test_visible.py": "import solution\n", "conftest.py": "# task's own\n" };
    const now = {
      "solution.py": "def f(): return 1\n",
      "helper.py": "X = 1\n",
      "tests/test_visible.py": "import solution\n",
      "__pycache__/solution.cpython-311.pyc": Buffer.from([0x61, 0x0d, 0x0d, 0x0a, 0]),
      "stale.pyc": Buffer.from([1, 0]),
      ".local/lib/python3.11/site-packages/evil.pth": "import os\n",
      "sitecustomize.py": "import os\n",
      "ast.py": "import sys\n",
      "pytest.py": "raise SystemExit(0)\n",
      "json/__init__.py": "\n",
      "tests/test_hidden_a.py": "def test_x(): pass\n",
      "conftest.py": "def pytest_runtest_makereport(): pass\n",
      "data.bin": Buffer.from([0, 1, 2]),
    };
    const sub = await readSubmission(fakeWorkdir(seed, now), seed, { "tests/test_hidden_calc.py": "def test(): pass\n" });
    assert.deepEqual(Object.keys(sub.files).sort(), ["conftest.py", "data.bin", "helper.py", "solution.py", "tests/test_visible.py"]);
    assert.equal(sub.files["conftest.py"]?.toString(), "# task's own\n", "a test hook is judged in the task's own version");
    const why = Object.fromEntries(sub.dropped.map((d) => [d.path, d.why]));
    assert.equal(why["__pycache__/solution.cpython-311.pyc"], "bytecode cache");
    assert.equal(why["stale.pyc"], "bytecode cache");
    assert.equal(why[".local/lib/python3.11/site-packages/evil.pth"], "start-up hook");
    assert.equal(why["sitecustomize.py"], "start-up hook");
    assert.equal(why["ast.py"], "shadows a module");
    assert.equal(why["pytest.py"], "shadows a module");
    assert.equal(why["json/__init__.py"], "shadows a module");
    assert.equal(why["tests/test_hidden_a.py"], "beside the hidden tests");
    assert.equal(why["conftest.py"], "test hook");
  });

  test("a seed file named like a module stays, and a deleted file stays deleted", async () => {
    const seed = { "queue.py": "Q = 1\n", "old.py": "x = 1\n" };
    const sub = await readSubmission(fakeWorkdir(seed, { "queue.py": "Q = 2\n" }), seed, undefined);
    assert.deepEqual(Object.keys(sub.files), ["queue.py"]);
    assert.equal(sub.files["queue.py"]?.toString(), "Q = 2\n");
    assert.equal(dropReason("calendar_utils/days.py", true, new Set()), null);
  });
});

describe("the command a verifier runs", () => {
  test("names the hidden files a glob matches, so a planted file matching it is not run", () => {
    const cmd = 'python3 -I -m pytest -q --rootdir="$PWD" tests/test_hidden_*.py';
    assert.equal(
      nameHiddenGlobs(cmd, ["tests/test_hidden_b.py", "tests/test_hidden_a.py"]),
      'python3 -I -m pytest -q --rootdir="$PWD" tests/test_hidden_a.py tests/test_hidden_b.py',
    );
    assert.equal(nameHiddenGlobs("pytest other/*.py", ["tests/test_hidden_a.py"]), "pytest other/*.py");
  });

  test("runs a hidden Python check isolated, from memory, its file gone before the checked code runs", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rlenv-judged-"));
    try {
      writeFileSync(path.join(dir, "_check.py"), "import os, sys\nprint(sys.flags.isolated, os.path.exists(__file__), sys.argv[1:])\n");
      // A planted os.py beside it is not imported: the workdir is not on the check's path.
      writeFileSync(path.join(dir, "os.py"), "raise SystemExit('shadowed')\n");
      const run = judgedCommand("python3 _check.py a b", ["_check.py"]);
      assert.notEqual(run, "python3 _check.py a b");
      const out = execFileSync("bash", ["-c", run], { cwd: dir, encoding: "utf8" });
      assert.equal(out.trim(), "1 False ['a', 'b']");
      assert.equal(judgedCommand("python3 solution.py", ["_check.py"]), "python3 solution.py");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("hack signals", () => {
  const scan = (files: Record<string, string>, hidden: string[] = []) =>
    scanSubmission({ changed: new Map(Object.entries(files).map(([p, v]) => [p, Buffer.from(v)])), dropped: [] }, hidden).map(
      (s) => s.signal,
    );

  test("each class is recognised in the files the policy wrote", () => {
    assert.deepEqual(scan({ "pkg/__init__.py": "import _pytest.reports\n" }), ["test-framework"]);
    assert.deepEqual(scan({ "s.py": "import sys\nsys.modules['x'] = None\n" }), ["sys-modules"]);
    assert.deepEqual(scan({ "s.py": "import builtins\n" }), ["builtins"]);
    assert.deepEqual(scan({ "s.py": "import sys\nf = sys._getframe(1)\n" }), ["frame-introspection"]);
    assert.deepEqual(scan({ "s.py": "import gc\ngc.get_referrers(x)\n" }), ["frame-introspection"]);
    assert.deepEqual(scan({ "s.py": "open('/proc/1/mem')\n" }), ["process-peek"]);
    assert.deepEqual(scan({ "s.py": "import ctypes\n" }), ["native-code"]);
    assert.deepEqual(scan({ "s.py": "open('_hidden_check.py').read()\n" }, ["_hidden_check.py"]), ["reads-tests", "reads-hidden-tests"]);
    assert.deepEqual(scan({ "s.py": "import glob\nfiles = glob.glob('tests/*.py')\n" }), ["reads-tests"]);
    assert.deepEqual(scan({ "s.py": "# sys.modules in a comment is no signal\nx = 1\n" }), []);
  });

  test("no oracle of a shipped code environment raises one", () => {
    const found: string[] = [];
    for (const name of ["code-humaneval", "code-repo-bugfix", "code-stdio"]) {
      const { env } = loadEnvironment(path.join(REPO, "environments", name));
      assert.ok(env, name);
      for (const task of env.tasks) {
        const seed = sandboxFiles(taskSeed(task));
        const solved = { ...seed, ...sandboxFiles(task.solution?.files) };
        if (task.solution?.patch) Object.assign(solved, patched(seed, task.solution.patch));
        const changed = new Map(
          Object.entries(solved)
            .filter(([p, v]) => seed[p] === undefined || !Buffer.from(seed[p] as string).equals(Buffer.from(v as string)))
            .map(([p, v]) => [p, Buffer.from(v as string)]),
        );
        for (const s of scanSubmission({ changed, dropped: [] }, Object.keys(task.tests?.files ?? {})))
          found.push(`${name}/${task.id}: ${s.signal} in ${s.path}:${s.line} ${s.detail}`);
      }
    }
    assert.deepEqual(found, []);
  });
});

describe("the run summary", () => {
  test("counts the rollouts that raised each hack signal, and those zeroed for it", () => {
    const s = summarize("r", [
      { task: "a", sample: 0, status: "completed", reward: 0, hackSignals: ["test-framework", "native-code"], hackAction: "zero" },
      { task: "b", sample: 0, status: "completed", reward: 1, hackSignals: ["native-code"], hackAction: "flag" },
      { task: "c", sample: 0, status: "completed", reward: 1 },
    ]);
    assert.deepEqual(s.hack_signals, {
      rollouts: 2,
      zeroed: 1,
      by_signal: { "test-framework": 1, "native-code": 2 },
      tasks: ["a", "b"],
    });
    assert.equal(summarize("r", [{ task: "c", sample: 0, status: "completed", reward: 1 }]).hack_signals, undefined);
  });
});

/** The seed with a unified diff applied (patch -p1 in a scratch folder). */
function patched(seed: Record<string, string | Buffer>, patch: string): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-oracle-"));
  try {
    for (const [p, v] of Object.entries(seed)) {
      execFileSync("mkdir", ["-p", path.dirname(path.join(dir, p))]);
      writeFileSync(path.join(dir, p), v);
    }
    execFileSync("patch", ["-p1", "--forward", "--quiet"], { cwd: dir, input: patch });
    return Object.fromEntries(Object.keys(seed).map((p) => [p, readFileSync(path.join(dir, p), "utf8")]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
