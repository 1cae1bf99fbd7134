import { z } from "zod";
import { HarborTaskToml } from "../schema/harbor-task-toml";
import { UNSUPPORTED } from "../schema/harbor-task-tables";

/**
 * task.toml's fields read off its zod schema (schema/harbor-task-toml.ts): each table's fields
 * with their type, description, default, enum values and examples. The editor's completion and
 * hover, and the loader's warnings about fields not honoured here, all read this one walk.
 */
export interface TomlField {
  key: string;
  type: "string" | "number" | "integer" | "boolean" | "table" | "array" | "array of tables";
  doc: string;
  values?: readonly string[];
  default?: unknown;
  examples?: readonly unknown[];
  deprecated?: boolean;
  /** What a run here does instead of what the field asks for (rlenv reads the field but cannot honour it). */
  unsupported?: string;
  required: boolean;
  /** The field's schema, wrappers (optional, default) taken off. */
  schema: z.ZodType;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(["optional", "default", "prefault", "nullable", "readonly", "catch", "nonoptional"]);

interface Unwrapped {
  inner: z.ZodType;
  meta: Record<string, unknown>;
  default?: unknown;
  optional: boolean;
}

/** The schema under its wrappers, with the metadata of every layer (the outermost wins) and the default a `.default()` gives. */
export function unwrap(s: z.ZodType): Unwrapped {
  const layers: Record<string, unknown>[] = [];
  let cur = s;
  let optional = false;
  let dflt: unknown;
  for (;;) {
    layers.push((z.globalRegistry.get(cur) as Record<string, unknown> | undefined) ?? {});
    const d = defOf(cur);
    if (!WRAPPERS.has(d.type)) break;
    if (d.type === "optional" || d.type === "default" || d.type === "prefault") optional = true;
    if (d.type === "default" && dflt === undefined) dflt = d.defaultValue;
    cur = d.innerType as z.ZodType;
  }
  return { inner: cur, meta: Object.assign({}, ...layers.reverse()), ...(dflt !== undefined ? { default: dflt } : {}), optional };
}

/** The TOML type of a schema: what the editor shows, and which fields are tables rather than `key = value` lines. */
export function tomlTypeOf(s: z.ZodType): { type: TomlField["type"]; values?: string[] } {
  const { inner } = unwrap(s);
  const d = defOf(inner);
  switch (d.type) {
    case "string":
      return { type: "string" };
    case "enum":
      return { type: "string", values: Object.values(d.entries as Record<string, string>) };
    case "number":
      return { type: (inner as unknown as { format?: string }).format === "safeint" ? "integer" : "number" };
    case "boolean":
      return { type: "boolean" };
    case "object":
    case "record":
      return { type: "table" };
    case "array": {
      const element = defOf(unwrap(d.element as z.ZodType).inner).type;
      return { type: element === "object" || element === "record" ? "array of tables" : "array" };
    }
    case "union":
      return tomlTypeOf((d.options as z.ZodType[])[0] as z.ZodType);
    case "pipe":
      // A value normalised on input (os in any case): the type and values are those it yields.
      return tomlTypeOf(d.out as z.ZodType);
    default:
      return { type: "string" };
  }
}

/** The object schema under a schema's wrappers, or undefined when it is not one. */
function tableSchema(s: z.ZodType): z.ZodType | undefined {
  const { inner } = unwrap(s);
  return defOf(inner).type === "object" ? inner : undefined;
}

/** The fields of an object schema, in the order the schema gives them. */
export function fieldsOf(table: z.ZodType): TomlField[] {
  const shape = (defOf(unwrap(table).inner).shape ?? {}) as Record<string, z.ZodType>;
  return Object.entries(shape).map(([key, s]) => {
    const u = unwrap(s);
    const meta = u.meta;
    return {
      key,
      ...tomlTypeOf(s),
      doc: typeof meta.description === "string" ? meta.description : "",
      ...(u.default !== undefined ? { default: u.default } : {}),
      ...(Array.isArray(meta.examples) ? { examples: meta.examples } : {}),
      ...(meta.deprecated === true ? { deprecated: true } : {}),
      ...(typeof meta[UNSUPPORTED] === "string" ? { unsupported: meta[UNSUPPORTED] as string } : {}),
      required: !u.optional,
      schema: u.inner,
    };
  });
}

export interface TomlTable {
  schema: z.ZodType;
  /** An array of tables (`[[name]]`). */
  array: boolean;
  doc: string;
  /** Inside a table this tool does not honour (its fields are not offered on their own). */
  withinUnsupported: boolean;
  /** Not honoured here, itself or a table it is in: its fields are not warned about one by one. */
  unsupported: boolean;
}

/** Every table of task.toml by its dotted name ("" is the top level; `[[steps]]` entries are "steps"). */
export function tablesOf(root: z.ZodType = HarborTaskToml): Map<string, TomlTable> {
  const out = new Map<string, TomlTable>([["", { schema: root, array: false, doc: "", withinUnsupported: false, unsupported: false }]]);
  const walk = (prefix: string, schema: z.ZodType, within: boolean) => {
    for (const f of fieldsOf(schema)) {
      const name = prefix ? `${prefix}.${f.key}` : f.key;
      const d = defOf(f.schema);
      const t = { doc: f.doc, withinUnsupported: within, unsupported: within || f.unsupported !== undefined };
      if (d.type === "record") out.set(name, { schema: f.schema, array: false, ...t });
      if (f.type === "array of tables") out.set(name, { schema: unwrap(d.element as z.ZodType).inner, array: true, ...t });
      const element = d.type === "array" ? tableSchema(d.element as z.ZodType) : undefined;
      const table = d.type === "object" ? f.schema : element;
      if (!table) continue;
      out.set(name, { schema: table, array: element !== undefined, ...t });
      walk(name, table, t.unsupported);
    }
  };
  walk("", root, false);
  return out;
}

/** The fields of each table of task.toml (a free-form table such as [metadata] or an env table has none listed). */
export const TASK_TOML_FIELDS: Readonly<Record<string, readonly TomlField[]>> = Object.fromEntries(
  [...tablesOf()].map(([name, t]) => [name, defOf(t.schema).type === "object" ? fieldsOf(t.schema) : []]),
);

/** The field a data path of task.toml names (array indices skipped), or undefined when the schema has no such field. */
export function fieldAt(path: readonly PropertyKey[]): TomlField | undefined {
  const names = path.filter((p) => typeof p === "string") as string[];
  const key = names[names.length - 1];
  return key === undefined ? undefined : TASK_TOML_FIELDS[names.slice(0, -1).join(".")]?.find((f) => f.key === key);
}
