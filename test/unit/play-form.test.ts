import assert from "node:assert/strict";
import { test } from "node:test";
import { collectArguments, formFields, initialValue } from "../../src/core/view/model/play-form";
import { PlayFromApp } from "../../src/core/view/protocol/play";

const schema = {
  type: "object",
  properties: {
    path: { type: "string", description: "file to write" },
    lines: { type: "integer" },
    ratio: { type: "number", default: 0.5 },
    force: { type: "boolean" },
    mode: { enum: ["fast", "safe"], default: "safe" },
    tags: { type: "array", items: { type: "string" } },
    box: { type: "object", properties: { w: { type: "number" } } },
    either: { type: ["string", "null"] },
  },
  required: ["path", "lines", "mode"],
};

test("a JSON Schema becomes typed fields with required marks, descriptions and defaults", () => {
  const { fields, raw } = formFields(schema);
  assert.equal(raw, false);
  assert.deepEqual(
    fields.map((f) => [f.name, f.kind, f.required]),
    [
      ["path", "string", true],
      ["lines", "integer", true],
      ["ratio", "number", false],
      ["force", "boolean", false],
      ["mode", "enum", true],
      ["tags", "string-list", false],
      ["box", "json", false],
      ["either", "string", false],
    ],
  );
  assert.equal(fields[0]?.description, "file to write");
  assert.equal(initialValue(fields[2]!), "0.5");
  assert.equal(initialValue(fields[4]!), "1", "the enum default is preselected");
});

test("values become arguments; empty optional fields are left out", () => {
  const { fields } = formFields(schema);
  const r = collectArguments(fields, { path: "a.txt", lines: "3", force: true, mode: "0", tags: "x\ny\n", box: '{"w": 2}', ratio: "" });
  assert.deepEqual(r, { ok: true, value: { path: "a.txt", lines: 3, force: true, mode: "fast", tags: ["x", "y"], box: { w: 2 } } });
});

test("bad values are reported by field: required, not an integer, not JSON", () => {
  const { fields } = formFields(schema);
  const r = collectArguments(fields, { path: "", lines: "2.5", box: "{oops", mode: "0" });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.errors.path, "required");
  assert.equal(r.errors.lines, "not an integer");
  assert.match(r.errors.box ?? "", /not valid JSON/);
});

test("schemas the form cannot express fall back to the raw JSON editor", () => {
  assert.equal(formFields({ type: "array" }).raw, true);
  assert.equal(formFields({ type: "object" }).raw, true);
  assert.equal(formFields({ type: "object", properties: {} }).raw, false);
});

test("the panel's messages are checked: a move needs a tool name, unknown kinds are refused", () => {
  assert.equal(PlayFromApp.safeParse({ kind: "move", action: { kind: "tool", name: "", arguments: {} } }).success, false);
  assert.equal(PlayFromApp.safeParse({ kind: "eval", code: "1" }).success, false);
  assert.equal(
    PlayFromApp.safeParse({ kind: "move", action: { kind: "tool", name: "bash", arguments: '{"command":"ls"}' } }).success,
    true,
  );
});
