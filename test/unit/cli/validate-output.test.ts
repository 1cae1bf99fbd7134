import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../../support/cli";
import { makeEnvDir } from "../../support/tmp-env";

const ADD_TASK = {
  id: "add",
  prompt: "Implement add.",
  files: { "solution.py": "def add(a, b):\n    raise NotImplementedError\n" },
  tests: { files: { "tests_hidden/test_add.py": "from solution import add\n\ndef test_small():\n    assert add(1, 2) == 3\n" } },
  solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
};

/** A code environment whose verifiers are broken the way authors break them: a misspelt test folder, a script that crashes. */
const broken = () =>
  makeEnvDir({
    "environment.yaml": [
      "name: typo",
      "domain: code",
      "tasks: tasks.jsonl",
      "tools: [bash, write_file, submit]",
      "reward:",
      "  - type: tests",
      "    command: python3 -m pytest -q -p no:cacheprovider tests_hiden",
      "    format: pytest",
      "  - type: script",
      "    name: style",
      '    command: python3 -c "print(undefined_name)"',
      "",
    ].join("\n"),
    "tasks.jsonl": `${JSON.stringify(ADD_TASK)}\n`,
  });

const good = () =>
  makeEnvDir({
    "environment.yaml":
      "name: good\ndomain: code\ntasks: tasks.jsonl\ntools: [bash, write_file, submit]\nreward:\n  - type: tests\n    command: python3 -m pytest -q -p no:cacheprovider tests_hidden\n    format: pytest\n",
    "tasks.jsonl": `${JSON.stringify(ADD_TASK)}\n`,
  });

test("validate --run: a failed task's line names each failing component, its reason and the first telling line of its output, on stdout", () => {
  const { dir, cleanup } = broken();
  try {
    const r = rlenv(["validate", "--run", "--sandbox", "process", "--runs", path.join(dir, "runs"), dir], { cwd: dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = r.stdout.split("\n").find((l) => l.startsWith("✗ typo/add:")) ?? "";
    // The tests component's own summary (how many ran), then pytest's line saying why.
    assert.match(
      line,
      /oracle scored 0, needs ≥ 1 — tests: [^;—]+ — file or directory not found: tests_hiden; style: NameError: name 'undefined_name' is not defined/,
    );
    // The environment's verdict comes after its tasks' and agrees with them: no "✓" after "✗".
    assert.match(r.stdout, /^✗ typo: 1 of 1 task failed validation$/m);
    assert.doesNotMatch(r.stdout + r.stderr, /✓ typo/);
    assert.doesNotMatch(r.stderr, /✗/, "results go to stdout, notes to stderr");
    assert.match(r.stderr, /trajectories kept in/);
  } finally {
    cleanup();
  }
});

test("validate: '1 task', and --run --tasks with an id no environment has is misuse (exit 2), with nothing run", () => {
  const { dir, cleanup } = good();
  try {
    const v = rlenv(["validate", dir], { cwd: dir });
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout, "✓ good: 1 task\n");
    const r = rlenv(["validate", dir, "--run", "--sandbox", "process", "--runs", path.join(dir, "runs"), "--tasks", "nosuch"], {
      cwd: dir,
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /unknown task id 'nosuch'/);
    assert.doesNotMatch(r.stdout, /✓/);
    assert.equal(existsSync(path.join(dir, "runs")), false, "no rollout ran");
  } finally {
    cleanup();
  }
});

test("run --policy replay:MISSING fails once, before any rollout starts", () => {
  const { dir, cleanup } = good();
  try {
    const r = rlenv(["run", dir, "--policy", "replay:nowhere.jsonl", "--sandbox", "process", "--runs", path.join(dir, "runs")], {
      cwd: dir,
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr.split("\n").filter((l) => /replay/.test(l)).length, 1, r.stderr);
    assert.match(r.stderr, /replay:nowhere\.jsonl: no such file or run folder/);
    assert.equal(existsSync(path.join(dir, "runs")), false);
  } finally {
    cleanup();
  }
});

test("validate --run --runs under a folder that refuses new entries exits 2 naming it (it hung in Node's recursive mkdir)", {
  skip: !existsSync("/proc/self"),
}, () => {
  const { dir, cleanup } = good();
  try {
    const r = rlenv(["validate", dir, "--run", "--sandbox", "process", "--runs", "/proc/rlenv-no-such/runs"], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /cannot make folder \/proc\/rlenv-no-such\/runs: ENOENT/);
  } finally {
    cleanup();
  }
});
