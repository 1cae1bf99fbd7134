// task.toml's editor support: the field table the completion and hover read agrees with the
// fields the loader knows, and completion offers what fits where the cursor is.
import assert from "node:assert/strict";
import { test } from "node:test";
import { KNOWN, STEP_KNOWN } from "../../src/core/harbor/task-config";
import { TASK_TOML_FIELDS, tableAt, taskTomlCompletions, taskTomlHover } from "../../src/core/harbor/task-toml-schema";

test("the editor's table of task.toml fields is the loader's, table by table", () => {
  for (const [table, known] of Object.entries(KNOWN))
    assert.deepEqual((TASK_TOML_FIELDS[table] ?? []).map((f) => f.key).sort(), [...known].sort(), `[${table}]`);
  assert.deepEqual((TASK_TOML_FIELDS.steps ?? []).map((f) => f.key).sort(), [...STEP_KNOWN].sort());
});

const TOML = `version = "1.0"

[agent]
timeout_sec = 600.0

[environment]
cpus = 1
net

[[steps]]
name = "a"

[steps.verifier]
t
`;

test("completion: the fields of the table the cursor is in, less those set; values of an enumerated field; table names on a header", () => {
  const lines = TOML.split("\n");
  assert.equal(tableAt(lines, 7), "environment");
  assert.equal(tableAt(lines, 10), "steps");
  assert.equal(tableAt(lines, 13), "steps.verifier");
  assert.equal(tableAt(lines, 1), "");
  const env = taskTomlCompletions(TOML, 7, 3).map((c) => c.label);
  assert.ok(env.includes("network_mode") && env.includes("memory_mb") && env.includes("workdir"));
  assert.ok(!env.includes("cpus"), "cpus is already set");
  assert.ok(!env.includes("timeout_sec"), "an [agent] field is not an [environment] one");
  const net = taskTomlCompletions(TOML, 7, 3).find((c) => c.label === "network_mode");
  assert.match(net?.insert ?? "", /public,no-network,allowlist/);
  assert.deepEqual(
    taskTomlCompletions(TOML, 13, 1).map((c) => c.label),
    ["timeout_sec", "user"],
  );
  const values = taskTomlCompletions('multi_step_reward_strategy = "', 0, 30);
  assert.deepEqual(
    values.map((v) => [v.label, v.insert]),
    [
      ["mean", "mean"],
      ["final", "final"],
    ],
  );
  assert.deepEqual(
    taskTomlCompletions("[[st", 0, 4)
      .map((c) => c.label)
      .filter((l) => l.startsWith("st")),
    ["steps", "steps.agent", "steps.verifier", "steps.verifier.env"],
  );
  assert.deepEqual(taskTomlCompletions('name = "x" and', 0, 14), []);
});

test("hover: the documentation of the key on the line, in its table", () => {
  assert.match(taskTomlHover(TOML, 3)?.doc ?? "", /Seconds the agent may work/);
  assert.equal(taskTomlHover(TOML, 6)?.table, "environment");
  assert.equal(taskTomlHover(TOML, 0)?.key, "version");
  assert.equal(taskTomlHover(TOML, 2), null);
  assert.match(taskTomlHover('[environment]\nnetwork_mode = "public"', 1)?.doc ?? "", /One of: public, no-network, allowlist/);
});
