import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { textFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { EXTRA_CHECKS } from "../../scripts/humaneval-extra-checks";

/** The inputs code-humaneval's hidden tests add to the dataset's check(): right by the canonical solution, and they catch what check() let pass. */
const REPO = path.resolve(import.meta.dirname, "..", "..");
const DATASET = path.join(REPO, "..", "shared", "datasets", "humaneval", "HumanEval.jsonl.gz");
const skip = existsSync(DATASET) ? false : `dataset missing: ${DATASET}`;

test("every expected value is what the canonical solution returns", { skip }, () => {
  const problems = new Map(
    gunzipSync(readFileSync(DATASET))
      .toString("utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { task_id: string; prompt: string; canonical_solution: string; entry_point: string })
      .map((p) => [p.task_id, p]),
  );
  const program = Object.entries(EXTRA_CHECKS).flatMap(([id, checks]) => {
    const p = problems.get(id);
    assert.ok(p, `${id} is not in the dataset`);
    return [
      "g = {}",
      `exec(${JSON.stringify(p.prompt + p.canonical_solution)}, g)`,
      ...checks.map(
        (c) =>
          `got = g[${JSON.stringify(p.entry_point)}](${c.args}); print(${JSON.stringify(`${id} ${c.args}`)}, got == (${c.expected}), repr(got))`,
      ),
    ];
  });
  const r = spawnSync("python3", ["-c", program.join("\n")], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const wrong = r.stdout.split("\n").filter((l) => l.includes(" False "));
  assert.deepEqual(wrong, []);
  assert.equal(r.stdout.trim().split("\n").length, Object.values(EXTRA_CHECKS).flat().length);
});

/** Runs a task's hidden check on a solution, as the verifier does (sentinel on stdin); true when it printed the sentinel. */
function hiddenCheckPasses(taskId: string, solution: string): boolean {
  const { env } = loadEnvironment(path.join(REPO, "environments", "code-humaneval"));
  const task = env?.tasks.find((t) => t.id === taskId);
  assert.ok(task, taskId);
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-he-extra-"));
  try {
    writeFileSync(path.join(dir, "_hidden_check.py"), textFiles(task.tests?.files)["_hidden_check.py"] ?? "");
    writeFileSync(path.join(dir, "solution.py"), solution);
    const r = spawnSync("python3", ["_hidden_check.py"], { cwd: dir, input: "SENTINEL-42\n", encoding: "utf8", timeout: 60_000 });
    return r.status === 0 && r.stdout.includes("SENTINEL-42");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function oracle(taskId: string): string {
  const { env } = loadEnvironment(path.join(REPO, "environments", "code-humaneval"));
  return textFiles(env?.tasks.find((t) => t.id === taskId)?.solution?.files)["solution.py"] ?? "";
}

test("the hidden checks pass the oracle and reject what the dataset's check() let pass", () => {
  const cases: Array<[string, string, string]> = [
    // A value table that ties 'six' with 'seven'.
    ["humaneval-019", "'six': 6,", "'six': 7,"],
    // 2 taken for not prime; the search for factors started at 3.
    ["humaneval-059", "if k < 2:", "if k <= 2:"],
    ["humaneval-059", "for j in range(2, n + 1):", "for j in range(3, n + 1):"],
  ];
  for (const [id, from, to] of cases) {
    const gold = oracle(id);
    assert.ok(gold.includes(from), `${id}: ${from}`);
    assert.equal(hiddenCheckPasses(id, gold), true, `${id}: the oracle passes`);
    assert.equal(hiddenCheckPasses(id, gold.replace(from, to)), false, `${id}: ${from} -> ${to} is caught`);
  }
  // A table of the docstring's one example for unique().
  const table = "def unique(l: list):\n    return {(5, 3, 5, 2, 3, 3, 9, 0, 123): [0, 2, 3, 5, 9, 123]}.get(tuple(l), l)\n";
  assert.equal(hiddenCheckPasses("humaneval-034", oracle("humaneval-034")), true);
  assert.equal(hiddenCheckPasses("humaneval-034", table), false);
});
