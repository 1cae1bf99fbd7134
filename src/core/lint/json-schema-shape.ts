/** JSON Schema's type names: anything else in `type` is a typo (`strng`) that no value can match. */
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Keywords whose value is one schema, a map of schemas, or a list of schemas. */
const ONE = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const LIST = ["anyOf", "allOf", "oneOf", "prefixItems"];

export interface ShapeProblem {
  path: PropertyKey[];
  message: string;
  severity: "error" | "warning";
}

const kind = (v: unknown) =>
  Array.isArray(v) ? "a list" : v === null ? "null" : typeof v === "object" ? "a mapping" : `a ${typeof v} (${JSON.stringify(v)})`;

/**
 * Mistakes in a JSON Schema that make it mean something else than its author wrote, found
 * without a meta-schema: `required: sql` (a string where a list belongs), `type: strng`,
 * `properties` that is not a mapping, a required name no property defines. Validators
 * either reject such a schema or quietly ignore the keyword; both only show at a rollout.
 */
export function schemaShapeProblems(schema: unknown, at: PropertyKey[] = []): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  if (typeof schema === "boolean") return out;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    out.push({ path: at, message: `a JSON Schema is a mapping, got ${kind(schema)}`, severity: "error" });
    return out;
  }
  const s = schema as Record<string, unknown>;
  if ("type" in s) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    for (const [i, t] of types.entries()) {
      if (typeof t !== "string" || !TYPES.has(t)) {
        const near = typeof t === "string" ? [...TYPES].find((x) => x.startsWith(t.slice(0, 3))) : undefined;
        out.push({
          path: Array.isArray(s.type) ? [...at, "type", i] : [...at, "type"],
          message: `unknown type ${JSON.stringify(t)}: one of ${[...TYPES].join(", ")}${near ? ` (did you mean '${near}'?)` : ""}`,
          severity: "error",
        });
      }
    }
  }
  if ("required" in s) {
    if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string")) {
      const hint = typeof s.required === "string" ? ` (write required: [${s.required}])` : "";
      out.push({
        path: [...at, "required"],
        message: `required must be a list of property names, got ${kind(s.required)}${hint}`,
        severity: "error",
      });
    } else if (s.properties && typeof s.properties === "object" && !Array.isArray(s.properties)) {
      for (const [i, r] of (s.required as string[]).entries()) {
        if (!(r in (s.properties as Record<string, unknown>)))
          out.push({
            path: [...at, "required", i],
            message: `'${r}' is required but not among the properties (${Object.keys(s.properties).join(", ") || "none"})`,
            severity: "warning",
          });
      }
    }
  }
  if ("enum" in s && !Array.isArray(s.enum))
    out.push({ path: [...at, "enum"], message: `enum must be a list of values, got ${kind(s.enum)}`, severity: "error" });
  for (const k of MAP) {
    if (!(k in s)) continue;
    const v = s[k];
    if (!v || typeof v !== "object" || Array.isArray(v)) {
      out.push({ path: [...at, k], message: `${k} must be a mapping of name to schema, got ${kind(v)}`, severity: "error" });
      continue;
    }
    for (const [name, sub] of Object.entries(v)) out.push(...schemaShapeProblems(sub, [...at, k, name]));
  }
  for (const k of ONE) if (k in s && !(k === "items" && Array.isArray(s[k]))) out.push(...schemaShapeProblems(s[k], [...at, k]));
  for (const k of LIST) {
    if (!(k in s)) continue;
    const v = s[k];
    if (!Array.isArray(v)) out.push({ path: [...at, k], message: `${k} must be a list of schemas, got ${kind(v)}`, severity: "error" });
    else for (const [i, sub] of v.entries()) out.push(...schemaShapeProblems(sub, [...at, k, i]));
  }
  return out;
}
