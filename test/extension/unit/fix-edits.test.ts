import assert from "node:assert/strict";
import { test } from "node:test";
import { loadManifestText } from "../../../src/core/environment/load-environment";
import { fixEdit, offsetAt } from "../../../src/extension/authoring/fix-edits";

const apply = (text: string, e: { start: number; end: number; text: string }) => text.slice(0, e.start) + e.text + text.slice(e.end);
const problemsOf = (text: string) => loadManifestText("/nowhere", "/nowhere/environment.yaml", text).problems;

test("offsetAt counts 1-based lines and columns", () => {
  assert.equal(offsetAt("ab\ncd\n", 2, 2), 4);
  assert.equal(offsetAt("ab", 9, 1), 2);
});

test("rename-field replaces exactly the misspelt key the loader found", () => {
  const text = "name: x\ndomain: code\ntasks: t.jsonl\nmax_turnz: 3\nreward:\n  - type: exact\n";
  const p = problemsOf(text).find((x) => x.fix?.kind === "rename-field");
  assert.ok(p, "the loader offers a rename");
  const e = fixEdit(text, p, false);
  assert.ok(e);
  assert.equal(apply(text, e), text.replace("max_turnz", "max_turns"));
});

test("insert-field adds a missing top-level field at the mapping's indentation", () => {
  const text = "domain: code\ntasks: t.jsonl\nreward:\n  - type: exact\n";
  const p = problemsOf(text).find((x) => x.fix?.kind === "insert-field" && x.fix.field === "name");
  assert.ok(p, "the loader offers to insert name");
  const e = fixEdit(text, p, false);
  assert.ok(e);
  const fixed = apply(text, e);
  assert.match(fixed, /^name: /m);
  assert.ok(!problemsOf(fixed).some((x) => x.message.includes("missing required field 'name'")));
});

test("insert-field inside a flow mapping and a JSON object goes after the brace", () => {
  const problem = {
    file: "f",
    line: 1,
    column: 7,
    endLine: 1,
    endColumn: 17,
    path: "x",
    message: "m",
    severity: "error" as const,
    fix: { kind: "insert-field" as const, field: "id", value: "t1" },
  };
  assert.equal(apply("tasks: { a: 1 }", fixEdit("tasks: { a: 1 }", problem, false)!), 'tasks: { id: "t1", a: 1 }');
  const json = '{"prompt": "p"}';
  const p2 = { ...problem, column: 1, endColumn: 16 };
  assert.equal(apply(json, fixEdit(json, p2, true)!), '{ "id": "t1","prompt": "p"}');
});

test("a fix whose text changed since is not applied", () => {
  const problem = {
    file: "f",
    line: 1,
    column: 1,
    endLine: 1,
    endColumn: 10,
    path: "max_turnz",
    message: "m",
    severity: "error" as const,
    fix: { kind: "rename-field" as const, from: "max_turnz", to: "max_turns" },
  };
  assert.equal(fixEdit("something: 1", problem, false), undefined);
});
