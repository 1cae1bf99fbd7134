/**
 * The Play Task form, as data: a tool's JSON Schema turned into fields, and the fields'
 * raw values (as a form holds them) turned back into arguments with clear errors. Pure, so
 * the webview renders it and the unit tests check it without a browser.
 */

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "string-list" | "json";

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** The allowed values of an enum field. */
  options?: unknown[];
  default?: unknown;
}

/** A field's value as the form holds it: text for inputs, a flag for checkboxes, an option index for selects. */
export type RawValue = string | boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function kindOf(s: Record<string, unknown>): FieldKind {
  if (Array.isArray(s.enum) && s.enum.length > 0) return "enum";
  const type = Array.isArray(s.type) ? s.type.filter((t) => t !== "null") : [s.type];
  if (type.length !== 1) return "json";
  switch (type[0]) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "array":
      return isObject(s.items) && s.items.type === "string" && !Array.isArray(s.items.enum) ? "string-list" : "json";
    default:
      return "json";
  }
}

/** The form of an object schema; `raw` when the schema is not a plain object with properties (edit the JSON itself). */
export function formFields(schema: unknown): { fields: FormField[]; raw: boolean } {
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== "object")) return { fields: [], raw: true };
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const fields = Object.entries(props).map(([name, p]): FormField => {
    const s = isObject(p) ? p : {};
    return {
      name,
      kind: kindOf(s),
      required: required.has(name),
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      ...(Array.isArray(s.enum) ? { options: s.enum } : {}),
      ...("default" in s ? { default: s.default } : {}),
    };
  });
  // Free-form objects (no properties, or anything extra allowed beyond them) need the raw editor too.
  return { fields, raw: fields.length === 0 && schema.additionalProperties !== false && !isObject(schema.properties) };
}

/** The form's starting value of a field (its schema default where there is one). */
export function initialValue(f: FormField): RawValue {
  if (f.kind === "boolean") return f.default === true;
  if (f.kind === "enum")
    return f.default === undefined
      ? f.required
        ? "0"
        : ""
      : String(
          Math.max(
            0,
            (f.options ?? []).findIndex((o) => JSON.stringify(o) === JSON.stringify(f.default)),
          ),
        );
  if (f.default === undefined) return "";
  if (f.kind === "string-list" && Array.isArray(f.default)) return f.default.join("\n");
  if (f.kind === "json") return JSON.stringify(f.default, null, 2);
  return String(f.default);
}

/** Arguments from the form's values; errors by field name. An empty optional field is left out. */
export function collectArguments(
  fields: FormField[],
  values: Record<string, RawValue>,
): { ok: true; value: Record<string, unknown> } | { ok: false; errors: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const raw = values[f.name] ?? initialValue(f);
    if (f.kind === "boolean") {
      value[f.name] = raw === true;
      continue;
    }
    const text = typeof raw === "string" ? raw : "";
    if (text.trim() === "" && f.kind !== "string") {
      if (f.required) errors[f.name] = "required";
      continue;
    }
    if (f.kind === "string" && text === "") {
      if (f.required) errors[f.name] = "required";
      continue;
    }
    switch (f.kind) {
      case "string":
        value[f.name] = text;
        break;
      case "number":
      case "integer": {
        const n = Number(text.trim());
        if (!Number.isFinite(n)) errors[f.name] = "not a number";
        else if (f.kind === "integer" && !Number.isInteger(n)) errors[f.name] = "not an integer";
        else value[f.name] = n;
        break;
      }
      case "enum": {
        const opt = (f.options ?? [])[Number(text)];
        if (opt === undefined) errors[f.name] = "pick one of the values";
        else value[f.name] = opt;
        break;
      }
      case "string-list":
        value[f.name] = text.split("\n").filter((l) => l !== "");
        break;
      case "json":
        try {
          value[f.name] = JSON.parse(text);
        } catch (e) {
          errors[f.name] = `not valid JSON: ${(e as Error).message}`;
        }
        break;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}
