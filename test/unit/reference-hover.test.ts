import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { keyPathAt, referenceHover, referenceSections, sectionAt } from "../../src/core/docs/reference-hover";

const reference = referenceSections(readFileSync(path.join(__dirname, "../../docs/reference.md"), "utf8"));
const at = (text: string, needle: string) => text.indexOf(needle) + 1;

const MANIFEST = `name: sql
domain: document
tasks: tasks
tools: [search]
reward:
  - type: fields
    fields:
      revenue: { comparator: money }
  - type: script
    command: python3 grade.py
`;

test("a key's path is found under the cursor, and a value is not a key", () => {
  assert.deepEqual(keyPathAt(MANIFEST, at(MANIFEST, "comparator"))?.path, ["reward", 0, "fields", "revenue", "comparator"]);
  assert.deepEqual(keyPathAt(MANIFEST, at(MANIFEST, "command"))?.path, ["reward", 1, "command"]);
  assert.equal(keyPathAt(MANIFEST, at(MANIFEST, "python3")), undefined);
});

test("hovers on manifest keys show the text docs/reference.md has for them", async () => {
  const money = await referenceHover("environment", MANIFEST, at(MANIFEST, "comparator"), "document");
  assert.equal(money, sectionAt(reference, ["Field comparators", "`money`"])?.text);
  assert.match(money ?? "", /^### `money`/);
  const script = await referenceHover("environment", MANIFEST, at(MANIFEST, "command"), "document");
  assert.equal(script, sectionAt(reference, ["What a `script` verifier receives"])?.text);
  const tools = await referenceHover("environment", MANIFEST, at(MANIFEST, "tools"), "document");
  assert.equal(tools, sectionAt(reference, ["Built-in tools", "document"])?.text);
  assert.match(tools ?? "", /#### `search`/);
  assert.equal(await referenceHover("environment", MANIFEST, at(MANIFEST, "name"), "document"), undefined);
});

test("a task.yaml's scene check and solution show their sections", async () => {
  const task = "prompt: Put the cup on the table.\ntarget:\n  checks:\n    - check: on_top_of\n      a: cup\nsolution:\n  tool_calls: []\n";
  assert.equal(
    await referenceHover("task", task, at(task, "check:"), "scene3d"),
    sectionAt(reference, ["Scene checks", "`on_top_of`"])?.text,
  );
  assert.equal(await referenceHover("task", task, at(task, "solution"), "scene3d"), sectionAt(reference, ["Task folders"])?.text);
});
