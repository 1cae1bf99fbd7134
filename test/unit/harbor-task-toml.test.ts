// task.toml has one schema (src/core/schema/harbor-task-toml.ts) and three views derived from
// it: the loader's checks, the editor's completion and hover, and the JSON Schema for TOML
// editors. These tests walk every table and field of the schema and fail when a view leaves one
// out or places its problem anywhere but the field's line.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parse } from "smol-toml";
import { parseTaskConfig } from "../../src/core/harbor/task-config";
import { fieldDoc, taskTomlCompletions, taskTomlHover } from "../../src/core/harbor/task-toml-schema";
import { TASK_TOML_FIELDS, type TomlField, tablesOf } from "../../src/core/harbor/task-toml-fields";
import { tomlPathSpan } from "../../src/core/harbor/toml-position";
import { renderJsonSchemas } from "../../src/core/schema/json-schema";

const TABLES = tablesOf();
const isTableField = (f: TomlField) => f.type === "table" || f.type === "array of tables";
/** Tables with fields of their own (free-form ones such as [metadata] and env tables have none). */
const FIELD_TABLES = [...TABLES].filter(([name]) => (TASK_TOML_FIELDS[name] ?? []).length > 0);

/** A TOML value for the field that its schema accepts: its example, else one of its values, else one of its type. */
function goodValue(f: TomlField): string {
  if (f.type === "table") return "{}";
  const v = f.examples?.[0] ?? f.values?.[0] ?? { string: "x", number: 1, integer: 1, boolean: true }[f.type as string];
  return v === undefined ? "[]" : JSON.stringify(v);
}

/** The lines that open a table: each array of tables above it gets an entry with its required fields. */
function openTable(name: string): string[] {
  const parts = name ? name.split(".") : [];
  const out: string[] = [];
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(".");
    const t = TABLES.get(prefix);
    if (!t || (!t.array && i < parts.length)) continue;
    out.push(t.array ? `[[${prefix}]]` : `[${prefix}]`);
    if (t.array || i === parts.length)
      for (const f of TASK_TOML_FIELDS[prefix] ?? []) if (f.required && !isTableField(f)) out.push(`${f.key} = ${goodValue(f)}`);
  }
  return out;
}

/** A TOML value of a kind the field's own schema rejects. */
function badValue(f: TomlField): string {
  for (const candidate of ["true", '"x x"', "123", "[1]", "{ a = 1 }", "-5"]) {
    const value = (parse(`v = ${candidate}`) as { v: unknown }).v;
    if (!f.schema.safeParse(value).success) return candidate;
  }
  throw new Error(`no value is wrong for ${f.key}`);
}

test("every field of every table is completed in its table and hovered with its documentation; every table is offered on a header", () => {
  const headers = new Set(taskTomlCompletions("[", 0, 1).map((c) => c.label));
  for (const [table, t] of TABLES) {
    if (table !== "" && !t.withinUnsupported) assert.ok(headers.has(table), `[${table}] is not offered on a header`);
    for (const f of TASK_TOML_FIELDS[table] ?? []) {
      if (isTableField(f)) continue;
      const lines = openTable(table).filter((l) => !l.startsWith(`${f.key} =`));
      const completed = taskTomlCompletions([...lines, ""].join("\n"), lines.length, 0).find((c) => c.label === f.key);
      assert.ok(completed, `${table}.${f.key} is not completed`);
      assert.equal(completed.doc, fieldDoc(f));
      const hover = taskTomlHover([...lines, `${f.key} = ${goodValue(f)}`].join("\n"), lines.length);
      assert.equal(hover?.key, f.key, `${table}.${f.key} has no hover`);
      assert.ok(f.doc.length > 0 && hover?.doc.startsWith(f.doc), `${table}.${f.key}: ${hover?.doc}`);
    }
  }
});

test("a completed field's example is a value the loader accepts for it", () => {
  for (const [table] of FIELD_TABLES)
    for (const f of TASK_TOML_FIELDS[table] ?? []) {
      if (isTableField(f)) continue;
      const lines = openTable(table).filter((l) => !l.startsWith(`${f.key} =`));
      const insert = taskTomlCompletions([...lines, ""].join("\n"), lines.length, 0).find((c) => c.label === f.key)?.insert ?? "";
      if (insert.includes("$")) continue;
      const { problems } = parseTaskConfig("/t/task.toml", [...lines, insert].join("\n"));
      const errors = problems.filter((p) => p.severity === "error" && p.line === lines.length + 1);
      assert.deepEqual(errors, [], `${table}.${f.key}: ${insert}`);
    }
});

test("a value of the wrong type is an error at its line and column, naming its field, for every field of every table", () => {
  for (const [table] of FIELD_TABLES)
    for (const f of TASK_TOML_FIELDS[table] ?? []) {
      const lines = [...openTable(table).filter((l) => !l.startsWith(`${f.key} =`)), `  ${f.key} = ${badValue(f)}`];
      const { problems } = parseTaskConfig("/t/task.toml", lines.join("\n"));
      const field = table ? `${table}.${f.key}` : f.key;
      const hit = problems.find((p) => p.severity === "error" && p.path === field);
      assert.ok(hit, `${field} = ${badValue(f)}: no error in ${JSON.stringify(problems)}`);
      assert.deepEqual([hit.file, hit.line, hit.column, hit.endColumn], ["/t/task.toml", lines.length, 3, 3 + f.key.length], field);
    }
});

test("an unknown field is a warning at its line in every table, with the field it most likely meant", () => {
  for (const [table] of FIELD_TABLES) {
    const fields = TASK_TOML_FIELDS[table] ?? [];
    const lines = [...openTable(table), "zz_not_harbors = 1"];
    const unknown = parseTaskConfig("/t/task.toml", lines.join("\n")).problems.find((p) => p.message.includes("'zz_not_harbors'"));
    assert.equal(unknown?.severity, "warning", `[${table}]`);
    assert.equal(unknown?.line, lines.length, `[${table}]`);
    for (const f of fields.filter((x) => x.key.length >= 6 && x.key[2] !== x.key[3])) {
      // Two letters swapped, as typed in a hurry.
      const typo = `${f.key.slice(0, 2)}${f.key[3]}${f.key[2]}${f.key.slice(4)}`;
      const base = openTable(table).filter((l) => !l.startsWith(`${f.key} =`));
      const { problems } = parseTaskConfig("/t/task.toml", [...base, `${typo} = ${goodValue(f)}`].join("\n"));
      const p = problems.find((x) => x.message.includes(`'${typo}'`));
      assert.match(p?.message ?? "", new RegExp(`did you mean '${f.key}'\\?`), `[${table}] ${typo}`);
      assert.equal(p?.line, base.length + 1);
    }
  }
});

test("each field not honoured here is warned at its line, saying what a run does instead; an empty one asks for nothing", () => {
  let seen = 0;
  for (const [table, t] of FIELD_TABLES)
    for (const f of TASK_TOML_FIELDS[table] ?? []) {
      if (!f.unsupported || t.unsupported || isTableField(f)) continue;
      seen++;
      // Hosts are only allowed through an allowlist (Harbor refuses them otherwise).
      const allowlist = f.key === "allowed_hosts" ? ['network_mode = "allowlist"'] : [];
      const base = [...openTable(table).filter((l) => !l.startsWith(`${f.key} =`)), ...allowlist];
      const set = f.type === "array" ? '["h"]' : f.type === "integer" ? "2" : goodValue(f);
      const warned = parseTaskConfig("/t/task.toml", [...base, `${f.key} = ${set}`].join("\n")).problems.find(
        (p) => p.severity === "warning" && p.line === base.length + 1,
      );
      assert.match(
        warned?.message ?? "",
        new RegExp(`read but not supported here: ${f.unsupported.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );
      if (f.type === "array" || f.type === "integer") {
        const empty = parseTaskConfig("/t/task.toml", [...base, `${f.key} = ${f.type === "array" ? "[]" : "0"}`].join("\n"));
        assert.ok(!empty.problems.some((p) => p.line === base.length + 1), `${table}.${f.key} empty`);
      }
    }
  assert.ok(seen >= 10, `only ${seen} unsupported fields`);
});

test("the published JSON Schema has every field of every table with its description", () => {
  const json = JSON.parse(renderJsonSchemas()["harbor-task.schema.json"] ?? "{}");
  assert.equal(json.$schema, "http://json-schema.org/draft-07/schema#");
  const at = (table: string): Record<string, { description?: string }> => {
    let node = json;
    for (const part of table ? table.split(".") : []) {
      node = node.properties[part];
      node = node.items?.anyOf?.find((x: { type?: string }) => x.type === "object") ?? node.items ?? node;
    }
    return node.properties ?? {};
  };
  for (const [table] of FIELD_TABLES)
    for (const f of TASK_TOML_FIELDS[table] ?? []) {
      const prop = at(table)[f.key];
      assert.ok(prop, `${table}.${f.key} is not in the JSON Schema`);
      assert.equal(prop.description, f.doc || undefined, `${table}.${f.key}`);
    }
  assert.ok(
    !/"additionalProperties": false/.test(renderJsonSchemas()["harbor-task.schema.json"] ?? ""),
    "Harbor lets unknown fields through",
  );
});

test("the position finder: array entries, nested tables, dotted keys and inline tables", () => {
  const text = [
    'schema_version = "1.3"', // 1
    "[[steps]]", // 2
    'name = "a"', // 3
    "[[steps]]", // 4
    'name = "b"', // 5
    "[steps.verifier]", // 6
    'env = { A = "x", B = [1] }', // 7
    "[environment]", // 8
    'healthcheck.command = "true"', // 9
  ].join("\n");
  assert.equal(tomlPathSpan(text, ["steps", 1, "name"]).line, 5);
  assert.equal(tomlPathSpan(text, ["steps", 0, "name"]).line, 3);
  assert.equal(tomlPathSpan(text, ["steps", 1, "verifier"]).line, 6);
  assert.equal(tomlPathSpan(text, ["steps", 0, "verifier"]).line, 2, "no such table: its entry's header");
  assert.deepEqual(tomlPathSpan(text, ["steps", 1, "verifier", "env", "B"]), { line: 7, column: 18, endLine: 7, endColumn: 19 });
  assert.equal(tomlPathSpan(text, ["environment", "healthcheck", "command"]).line, 9);
  assert.equal(tomlPathSpan(text, ["agent", "timeout_sec"]).line, 1, "nothing of it: the start of the file");
  const bad = parseTaskConfig("/t/task.toml", text.replace("B = [1]", "B = [1]"));
  const env = bad.problems.find((p) => p.path === "steps.verifier.env.B");
  assert.deepEqual([env?.line, env?.column, env?.message], [7, 18, "step 'b': an environment value must be a string"]);
});

const SAMPLE = path.join(__dirname, "../fixtures/harbor-tasks");

test("the 8 sample tasks (TB 2.0, schema 1.0) load with no error and no unknown field: only the docker_image and storage warnings", () => {
  const tasks = readdirSync(SAMPLE, { withFileTypes: true }).filter((d) => d.isDirectory());
  assert.equal(tasks.length, 8);
  for (const t of tasks) {
    const file = path.join(SAMPLE, t.name, "task.toml");
    const text = readFileSync(file, "utf8");
    const { config, problems } = parseTaskConfig(file, text);
    assert.ok(config, t.name);
    const lineOf = (key: string) => text.split("\n").findIndex((l) => l.startsWith(`${key} =`)) + 1;
    const expected = [
      ...(/^storage =/m.test(text) ? [["warning", lineOf("storage"), "environment.storage"]] : []),
      ...(/^storage_mb =/m.test(text) ? [["warning", lineOf("storage_mb"), "environment.storage_mb"]] : []),
      ...(/^docker_image =/m.test(text) ? [["warning", lineOf("docker_image"), "environment.docker_image"]] : []),
    ];
    assert.deepEqual(
      problems.map((p) => [p.severity, p.line, p.path]),
      expected,
      t.name,
    );
    assert.equal(config.schemaVersion, "1.0");
    assert.equal(config.agentTimeoutSec, (parse(text) as { agent: { timeout_sec: number } }).agent.timeout_sec);
    assert.equal(config.memoryMb, 2048);
    assert.equal(config.storageMb, 10240);
  }
});

test("a [[steps]] entry in error is left out, and the steps after it keep their own entry's place", () => {
  const { config, problems } = parseTaskConfig("/t/task.toml", '[[steps]]\nname = "../up"\n[[steps]]\nname = "b"\n[[steps]]\nname = "c"\n');
  assert.deepEqual(
    config?.steps.map((s) => [s.name, s.entry]),
    [
      ["b", 1],
      ["c", 2],
    ],
  );
  assert.deepEqual(
    problems.map((p) => [p.line, p.severity]),
    [[2, "error"]],
  );
  const clean = parseTaskConfig("/t/task.toml", '[[steps]]\nname = "a"\n[[steps]]\nname = "b"\n');
  assert.deepEqual(
    clean.config?.steps.map((s) => s.entry),
    [0, 1],
  );
});
