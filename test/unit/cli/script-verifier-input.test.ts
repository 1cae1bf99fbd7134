import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../../support/cli";
import { makeEnvDir } from "../../support/tmp-env";

// The script grades the submitted report against the task's target, reading the task and answer
// from stdin, the same from RLENV_* variables, and the trajectory from its file.
const GRADER = `
import json, os, sys
inp = json.load(sys.stdin)
assert json.load(open(os.environ["RLENV_INPUT"])) == inp
assert os.environ["RLENV_TASK_ID"] == inp["task"]["id"]
assert json.loads(os.environ["RLENV_TARGET"]) == inp["task"]["target"]
assert json.loads(os.environ["RLENV_ANSWER"]) == inp["answer"]
assert json.loads(os.environ["RLENV_TASK_METADATA"])["unit"] == "USD"
events = [json.loads(l) for l in open(os.environ["RLENV_TRAJECTORY"])]
assert events[0]["type"] == "start" and any(e["type"] == "tool_call" and e["name"] == "submit" for e in events)
ok = inp["answer"]["total"] == inp["task"]["target"]["total"]
print(json.dumps({"score": 1 if ok else 0, "reason": "total %s" % ("matches" if ok else "differs")}))
`;

test("a script verifier sees the task, the submitted answer and the trajectory; a task adds or replaces reward components", () => {
  // The grader is a seed file: the agent could see it, which is fine for a test of what it receives.
  const task = (id: string, answer: unknown, reward?: unknown) => ({
    id,
    prompt: "Report the total.",
    files: { "grade.py": GRADER },
    target: { total: 12, note: "x" },
    metadata: { unit: "USD" },
    solution: { answer },
    ...(reward ? { reward } : {}),
  });
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": [
      "name: graded",
      "domain: custom",
      "tasks: tasks.jsonl",
      "tools: [submit]",
      "reward:",
      "  - type: script",
      "    name: grader",
      "    command: python3 grade.py",
      "",
    ].join("\n"),
    "tasks.jsonl": [
      task("right", { total: 12 }),
      task("wrong", { total: 13 }),
      // This task's own component replaces the manifest's 'grader', and it adds an exact check on a field.
      task("own", { total: 12, note: "x" }, [
        { type: "script", name: "grader", command: 'python3 -c "print(0.5)"' },
        { type: "exact", name: "note", field: "note" },
      ]),
    ]
      .map((t) => JSON.stringify(t))
      .join("\n"),
  });
  try {
    const runs = path.join(dir, "runs");
    const r = rlenv(["run", dir, "--policy", "oracle", "--sandbox", "process", "--runs", runs, "--run-id", "r", "--json"], { cwd: dir });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rewards = Object.fromEntries(
      readdirSync(path.join(runs, "r", "rollouts")).map((f) => {
        const events = readFileSync(path.join(runs, "r", "rollouts", f), "utf8")
          .trim()
          .split("\n")
          .map(
            (l) =>
              JSON.parse(l) as { type: string; task?: { id: string }; components?: Array<{ name: string; score: number; error?: string }> },
          );
        const id = events[0]?.task?.id ?? f;
        const reward = events.find((e) => e.type === "reward");
        return [id, reward?.components?.map((c) => [c.name, c.score, c.error ?? ""])];
      }),
    );
    assert.deepEqual(rewards.right, [["grader", 1, ""]]);
    assert.deepEqual(rewards.wrong, [["grader", 0, ""]]);
    assert.deepEqual(rewards.own, [
      ["grader", 0.5, ""],
      ["note", 1, ""],
    ]);
  } finally {
    cleanup();
  }
});
