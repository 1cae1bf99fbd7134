import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { Command } from "commander";
import { collectTaskIds } from "../../../src/cli/task-ids";
import { rlenv } from "../../support/cli";
import { makeEnvDir } from "../../support/tmp-env";

test("--tasks takes ids with spaces or commas between them", () => {
  const parse = (...args: string[]) =>
    new Command()
      .exitOverride()
      .option("--tasks <ids...>", "", collectTaskIds)
      .option("--json")
      .parse(args, { from: "user" })
      .opts<{ tasks?: string[] }>().tasks;
  assert.deepEqual(parse("--tasks", "a", "b"), ["a", "b"]);
  assert.deepEqual(parse("--tasks", "a,b", "c", "--json"), ["a", "b", "c"]);
  assert.deepEqual(parse("--tasks", "a,,b,"), ["a", "b"]);
  assert.equal(parse("--json"), undefined);
});

test("audit: a --tasks id no environment has is misuse (exit 2), named with ids that exist", () => {
  const add = {
    id: "add-1",
    prompt: "Implement add.",
    files: { "solution.py": "def add(a, b):\n    raise NotImplementedError\n" },
    tests: { files: { "tests_hidden/test_add.py": "from solution import add\n\ndef test_small():\n    assert add(1, 2) == 3\n" } },
    solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
  };
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml":
      "name: good\ndomain: code\ntasks: tasks.jsonl\ntools: [bash, write_file, submit]\nreward:\n  - type: tests\n    command: python3 -m pytest -q -p no:cacheprovider tests_hidden\n    format: pytest\n",
    "tasks.jsonl": `${JSON.stringify(add)}\n`,
  });
  try {
    const r = rlenv(["audit", dir, "--sandbox", "process", "--out", path.join(dir, "audit"), "--tasks", "add-2,add-3"], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /rlenv audit: unknown task ids 'add-2', 'add-3': no environment here has them \(tasks look like add-1\)/);
    assert.match(r.stderr, /✗ audit failed/);
  } finally {
    cleanup();
  }
});
