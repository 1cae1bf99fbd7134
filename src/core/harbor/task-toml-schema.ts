/**
 * Completion and hover for Harbor's task.toml. The fields, their types, meanings, defaults,
 * enum values and examples come from task.toml's one zod schema (schema/harbor-task-toml.ts)
 * through task-toml-fields.ts, the same walk the loader's checks read: a field the loader
 * knows is a field the editor offers.
 */
import { TASK_TOML_FIELDS, type TomlField, tablesOf } from "./task-toml-fields";
import { tableAt } from "./toml-position";

export { TASK_TOML_FIELDS, tableAt, type TomlField };

/** A field's value as TOML text, for a completion's snippet (a float field's whole number written 600.0). */
function tomlValue(v: unknown, type: TomlField["type"]): string {
  if (typeof v === "number") return type === "number" && Number.isInteger(v) ? v.toFixed(1) : String(v);
  return JSON.stringify(v);
}

/** What to insert after `key = `: an example, else the enum's values as a choice, else a placeholder of the field's type. */
function snippetOf(x: TomlField): string {
  if (x.values) return `"\${1|${x.values.join(",")}|}"`;
  if (x.examples?.[0] !== undefined) return tomlValue(x.examples[0], x.type);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a VS Code snippet's choice placeholder
  return x.type === "string" ? '"$1"' : x.type === "array" ? "[$1]" : x.type === "boolean" ? "${1|true,false|}" : "$1";
}

/** A field's documentation as the editor shows it: its meaning, values, default, and what a run here does with it. */
export function fieldDoc(x: TomlField): string {
  const parts = [x.doc];
  if (x.values) parts.push(`One of: ${x.values.join(", ")}.`);
  if (x.default !== undefined && !(typeof x.default === "object")) parts.push(`Default: ${tomlValue(x.default, x.type)}.`);
  if (x.deprecated) parts.push("Deprecated.");
  if (x.unsupported) parts.push(`Not honoured here: ${x.unsupported}.`);
  return parts.join(" ");
}

export interface TomlCompletion {
  label: string;
  /** Text inserted (a snippet with $1 where the cursor lands). */
  insert: string;
  detail: string;
  doc: string;
  kind: "field" | "table" | "value";
}

/**
 * What may be typed at a position of task.toml (0-based line and column): on a `[` header the
 * tables, after `key = ` an enumerated field's values, else the fields of the table the line is
 * in that the table does not set yet.
 */
export function taskTomlCompletions(text: string, line: number, column: number): TomlCompletion[] {
  const lines = text.split("\n");
  const before = (lines[line] ?? "").slice(0, column);
  if (/^\s*\[\[?[\w.]*$/.test(before)) {
    return [...tablesOf()]
      .filter(([n, t]) => n !== "" && !t.withinUnsupported)
      .map(([n, t]) => ({
        label: n,
        insert: n,
        detail: t.array ? "array of tables" : "table",
        doc: t.doc || `[${n}]`,
        kind: "table" as const,
      }));
  }
  const table = tableAt(lines, line);
  const fields = TASK_TOML_FIELDS[table] ?? [];
  const valueAt = /^\s*([\w-]+)\s*=\s*"?[\w-]*$/.exec(before);
  if (valueAt) {
    const field = fields.find((x) => x.key === valueAt[1]);
    return (field?.values ?? []).map((v) => ({
      label: v,
      insert: before.includes('"') ? v : `"${v}"`,
      detail: field?.key ?? "",
      doc: field ? fieldDoc(field) : "",
      kind: "value" as const,
    }));
  }
  if (!/^\s*[\w-]*$/.test(before)) return [];
  // Keys the table already sets (from its header to the next) are not offered again.
  let start = line;
  while (start > 0 && !/^\s*\[/.test(lines[start] ?? "")) start--;
  let end = line + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
  const set = new Set(
    lines
      .slice(start, end)
      .filter((_, i) => start + i !== line)
      .flatMap((l) => {
        const m = /^\s*([\w-]+)\s*=/.exec(l);
        return m?.[1] ? [m[1]] : [];
      }),
  );
  return fields
    .filter((x) => !set.has(x.key) && x.type !== "table" && x.type !== "array of tables")
    .map((x) => ({
      label: x.key,
      insert: `${x.key} = ${snippetOf(x)}`,
      detail: x.type,
      doc: fieldDoc(x),
      kind: "field" as const,
    }));
}

/** The documentation of the key on a line of task.toml, for a hover; null when the line sets no known key. */
export function taskTomlHover(text: string, line: number): { key: string; table: string; doc: string; type: string } | null {
  const lines = text.split("\n");
  const m = /^\s*([\w-]+)\s*=/.exec(lines[line] ?? "");
  if (!m?.[1]) return null;
  const table = tableAt(lines, line);
  const field = (TASK_TOML_FIELDS[table] ?? []).find((x) => x.key === m[1]);
  return field ? { key: field.key, table, doc: fieldDoc(field), type: field.type } : null;
}
