// task.toml's editor support: completion offers what fits where the cursor is, hover explains
// the key under it (both read the fields off task.toml's one schema; harbor-task-toml.test.ts
// checks the loader, the editor and the published JSON Schema agree).
import assert from "node:assert/strict";
import { test } from "node:test";
import { TASK_TOML_FIELDS, tableAt, taskTomlCompletions, taskTomlHover } from "../../src/core/harbor/task-toml-schema";

test("the editor's table of task.toml fields holds Harbor's tables and fields (schema 1.0 to 1.3)", () => {
  const keys = (t: string) => (TASK_TOML_FIELDS[t] ?? []).map((f) => f.key);
  assert.deepEqual(keys(""), [
    "version",
    "schema_version",
    "source",
    "artifacts",
    "multi_step_reward_strategy",
    "metadata",
    "task",
    "verifier",
    "agent",
    "solution",
    "environment",
    "steps",
  ]);
  assert.deepEqual(keys("steps"), ["name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"]);
  for (const k of ["memory", "memory_mb", "storage", "storage_mb", "gpus", "tpu", "mcp_servers", "workdir", "healthcheck", "os"])
    assert.ok(keys("environment").includes(k), k);
  assert.deepEqual(keys("task"), ["name", "description", "authors", "keywords"]);
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
  // [steps.verifier] is Harbor's VerifierConfig, as [verifier] is (StepConfig.verifier), with a timeout of the step's own.
  assert.deepEqual(
    taskTomlCompletions(TOML, 13, 1).map((c) => c.label),
    ["timeout_sec", "user", "network_mode", "allowed_hosts", "environment_mode"],
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
    // Tables inside one not honoured here (a separate verifier image's) are not offered on their own.
    [
      "steps",
      "steps.agent",
      "steps.verifier",
      "steps.verifier.env",
      "steps.verifier.environment",
      "steps.verifier.collect",
      "steps.healthcheck",
    ],
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
