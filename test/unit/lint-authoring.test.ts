import assert from "node:assert/strict";
import { test } from "node:test";
import { rlenv } from "../support/cli";
import { makeEnvDir } from "../support/tmp-env";

/** The problem lines of `rlenv validate`, as printed (file:line:col: severity: path: message). */
function problemLines(dir: string): { code: number | null; lines: string[] } {
  const r = rlenv(["validate", "."], { cwd: dir });
  return { code: r.code, lines: r.stdout.split("\n").filter((l) => /:\d+:\d+: (error|warning):/.test(l)) };
}

test("static checks: a custom tool's broken parameters, tool-call arguments its parameters reject, commands with no bash tool", () => {
  const manifest = [
    "name: sql",
    "domain: custom",
    "tasks: tasks.jsonl",
    "tools:",
    "  - submit",
    "  - name: query",
    "    description: Run SQL",
    "    parameters:",
    "      type: object",
    "      properties: { sql: { type: strng } }",
    "      required: sql",
    "    command: cat",
    "  - name: limit",
    "    description: Set a row limit",
    "    parameters: { type: object, properties: { rows: { type: number } }, required: [rows] }",
    "    command: cat",
    "reward:",
    "  - type: exact",
    "",
  ].join("\n");
  const task = {
    id: "t",
    prompt: "p",
    target: "1",
    solution: {
      tool_calls: [
        { name: "limit", arguments: { rows: "ten" } },
        { name: "lmit", arguments: {} },
      ],
      commands: ["echo hi"],
      answer: "1",
    },
  };
  const { dir, cleanup } = makeEnvDir({ "environment.yaml": manifest, "tasks.jsonl": `${JSON.stringify(task)}\n` });
  try {
    const { code, lines } = problemLines(dir);
    assert.equal(code, 1, lines.join("\n"));
    const line = JSON.stringify(task);
    const col = (s: string) => line.indexOf(s) + 1;
    assert.deepEqual(lines, [
      "environment.yaml:11:17: error: tools[1].parameters.required: tool 'query': required must be a list of property names, got a string (\"sql\") (write required: [sql])",
      "environment.yaml:10:34: error: tools[1].parameters.properties.sql.type: tool 'query': unknown type \"strng\": one of string, number, integer, boolean, object, array, null (did you mean 'string'?)",
      `tasks.jsonl:1:${col('"ten"')}: error: tasks[0].solution.tool_calls[0].arguments.rows: limit: expected a number, got a string`,
      `tasks.jsonl:1:${col('"lmit"')}: error: tasks[0].solution.tool_calls[1].name: no tool 'lmit' in this environment (did you mean 'limit'?); tools: submit, query, limit`,
      `tasks.jsonl:1:${col('["echo hi"]')}: warning: tasks[0].solution.commands: the oracle runs these shell commands straight in the sandbox, but the agent has no bash tool to do the same: add bash to tools, or give the solution as files or tool_calls`,
    ]);
  } finally {
    cleanup();
  }
});

test("static checks: a fields verifier field no task's target has; a reference report target.schema rejects", () => {
  const manifest = [
    "name: rep",
    "domain: document",
    "documents: { path: docs }",
    "tasks: tasks.jsonl",
    "reward:",
    "  - type: fields",
    "    fields:",
    "      revenue: { comparator: number }",
    "      margn: { comparator: percent }",
    "",
  ].join("\n");
  const schema = {
    type: "object",
    properties: { revenue: { type: "number" }, margin: { type: "number" } },
    required: ["revenue", "margin"],
  };
  const task = { id: "r", prompt: "p", target: { schema, revenue: 12, margin: 0.3 }, solution: { answer: { revenue: "12", margin: 0.3 } } };
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": manifest,
    "tasks.jsonl": `${JSON.stringify(task)}\n`,
    "docs/a.txt": "Revenue was 12.",
  });
  try {
    const { code, lines } = problemLines(dir);
    assert.equal(code, 1, lines.join("\n"));
    const line = JSON.stringify(task);
    assert.deepEqual(lines, [
      "environment.yaml:9:7: error: reward[0].fields.margn: no task's target has 'margn' (target.margn or target.fields.margn): every rollout scores 0 on it (did you mean 'margin'?)",
      `tasks.jsonl:1:${line.indexOf('"12"') + 1}: error: tasks[0].solution.answer.revenue: the reference answer does not match target.schema: expected a number, got a string`,
    ]);
  } finally {
    cleanup();
  }
});
