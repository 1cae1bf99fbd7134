import assert from "node:assert/strict";
import { test } from "node:test";
import { rlenv } from "../../support/cli";
import { makeEnvDir } from "../../support/tmp-env";

const validate = (files: Record<string, string>) => {
  const { dir, cleanup } = makeEnvDir(files);
  try {
    const r = rlenv(["validate", "."], { cwd: dir });
    return { code: r.code, lines: r.stdout.split("\n").filter((l) => /:\d+:\d+: (error|warning):/.test(l)) };
  } finally {
    cleanup();
  }
};

test("a manifest problem does not hide the task file's: both are reported in one round, and memory: 512 says 512m", () => {
  const r = validate({
    "environment.yaml": "name: e\ndomain: code\nsandbox:\n  limits: { memory: 512 }\ntasks: tasks.jsonl\nreward:\n  - type: exact\n",
    "tasks.jsonl": '{"id":"t","prompt":"p","max_turn":3}\n',
  });
  assert.equal(r.code, 1);
  assert.deepEqual(r.lines, [
    "environment.yaml:4:21: error: sandbox.limits.memory: expected a string, got a number: a size needs a unit: '512m' for 512 megabytes, '512g' for gigabytes",
    "tasks.jsonl:1:24: error: tasks[0].max_turn: unknown field 'max_turn' (did you mean 'max_turns'?)",
  ]);
});

test("a duplicate task id names the file and line of the first definition (task folders all start at line 1)", () => {
  const r = validate({
    "environment.yaml": "name: e\ndomain: code\ntasks: tasks\nreward:\n  - type: exact\n",
    "tasks/a/task.yaml": "id: same\nprompt: p\n",
    "tasks/b/task.yaml": "id: same\nprompt: q\n",
  });
  assert.deepEqual(r.lines, ["tasks/b/task.yaml:1:1: error: tasks[1].id: duplicate task id 'same' (first defined at tasks/a/task.yaml:1)"]);
});

test("an unclosed YAML quote is reported at the opening quote, not at the end of the file", () => {
  const r = validate({
    "environment.yaml": 'name: e\ndomain: code\ndescription: "an environment\ntasks: tasks.jsonl\nreward:\n  - type: exact\n',
    "tasks.jsonl": '{"id":"t","prompt":"p"}\n',
  });
  assert.deepEqual(r.lines, [
    "environment.yaml:3:14: error: invalid YAML: this double quote is never closed (the string runs on to the end of the file)",
  ]);
});

test("scene check problems say what is wrong at the field, with did-you-mean for a misspelt key", () => {
  const task = {
    id: "t",
    prompt: "p",
    target: {
      checks: [
        { check: "on_top_of", object: "cup", suport: "table" },
        { check: "distance", a: "cup", b: 3 },
        { check: "on_top", object: "cup", support: "table" },
      ],
    },
    solution: {
      tool_calls: [
        { name: "add_object", arguments: { name: "cup", kind: "box" } },
        { name: "add_object", arguments: { name: "table", kind: "box" } },
      ],
    },
  };
  const line = JSON.stringify(task);
  const r = validate({
    "environment.yaml": "name: s\ndomain: scene3d\nscene: { backend: builtin }\ntasks: tasks.jsonl\nreward:\n  - type: scene\n",
    "tasks.jsonl": `${line}\n`,
  });
  const col = (s: string, from = 0) => line.indexOf(s, from) + 1;
  assert.deepEqual(r.lines, [
    `tasks.jsonl:1:${col('{"check":"on_top_of"')}: error: tasks[0].target.checks[0]: missing required field 'support' (a string)`,
    `tasks.jsonl:1:${col('"suport"')}: error: tasks[0].target.checks[0].suport: unknown field 'suport' (did you mean 'support'?)`,
    `tasks.jsonl:1:${col("3}")}: error: tasks[0].target.checks[1].b: expected a string, got a number`,
    `tasks.jsonl:1:${col('"on_top"')}: error: tasks[0].target.checks[2].check: unknown check "on_top" (did you mean 'on_top_of'?); checks: exists, count, position, size, on_top_of, inside, no_overlap, aligned, distance, facing, orientation, parent, iou`,
  ]);
});
