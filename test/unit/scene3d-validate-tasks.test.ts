import assert from "node:assert/strict";
import { test } from "node:test";
import { sceneTaskProblems } from "../../src/core/domains/scene3d/validate-tasks";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { makeEnvDir } from "../support/tmp-env";

const manifest = "name: t\ndomain: scene3d\nscene:\n  assets: assets\ntasks: tasks.jsonl\nreward:\n  - type: scene\n";

function task(id: string, checkObject: string, pad = 0): string {
  // `pad` shifts the check's column so each task's problem has its own position on its own line.
  return JSON.stringify({
    id,
    prompt: "p".repeat(1 + pad),
    target: { initial: [{ name: "cube", kind: "box" }], checks: [{ check: "exists", objects: [checkObject] }] },
    solution: { tool_calls: [] },
  });
}

test("sceneTaskProblems positions each task's problem on its own line and column of a shared tasks file", async () => {
  const lines = [task("a", "cube"), task("b", "ghost", 10), task("c", "cube"), task("d", "phantom", 30)];
  const { dir, cleanup } = makeEnvDir({ "environment.yaml": manifest, "tasks.jsonl": `${lines.join("\n")}\n`, "assets/.keep": "" });
  try {
    const { env } = loadEnvironment(dir);
    assert.ok(env);
    const problems = await sceneTaskProblems(env);
    assert.deepEqual(
      problems.map((p) => [p.path, p.line, p.severity]),
      [
        ["tasks[1].target.checks[0].objects[0]", 2, "warning"],
        ["tasks[3].target.checks[0].objects[0]", 4, "warning"],
      ],
    );
    for (const p of problems) {
      const line = lines[p.line - 1] ?? "";
      const name = p.path.startsWith("tasks[1]") ? '"ghost"' : '"phantom"';
      assert.equal(line.slice(p.column - 1, p.endColumn - 1), name, p.path);
    }
  } finally {
    cleanup();
  }
});
