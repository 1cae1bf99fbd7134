import type { z } from "zod";

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if (["optional", "default", "nullable", "prefault", "readonly", "catch", "nonoptional"].includes(d.type))
      cur = d.innerType as z.ZodType;
    else if (d.type === "pipe") cur = d.in as z.ZodType;
    else return cur;
  }
}

/** The branch of a union that this data value selects (by discriminator, else the first object branch). */
function pickBranch(s: z.ZodType, value: unknown): z.ZodType | undefined {
  const d = defOf(s);
  const options = (d.options as z.ZodType[]) ?? [];
  const disc = d.discriminator as string | undefined;
  if (disc && value && typeof value === "object") {
    const want = (value as Record<string, unknown>)[disc];
    for (const o of options) {
      const shape = defOf(unwrap(o)).shape as Record<string, z.ZodType> | undefined;
      const lit = shape?.[disc];
      if (lit && defOf(unwrap(lit)).type === "literal" && (defOf(unwrap(lit)).values as unknown[]).includes(want)) return o;
    }
  }
  for (const o of options) {
    const t = defOf(unwrap(o)).type;
    if (value && typeof value === "object" && !Array.isArray(value) ? t === "object" : t !== "object") return o;
  }
  return options[0];
}

/** The sub-schema at a data path, following the data through unions. */
export function schemaAt(root: z.ZodType, data: unknown, path: ReadonlyArray<PropertyKey>): z.ZodType | undefined {
  let s: z.ZodType | undefined = root;
  let value: unknown = data;
  for (let i = 0; i <= path.length && s; i++) {
    s = unwrap(s);
    let d = defOf(s);
    if (d.type === "union") {
      s = pickBranch(s, value);
      if (!s) return undefined;
      s = unwrap(s);
      d = defOf(s);
    }
    if (i === path.length) return s;
    const seg = path[i]!;
    value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[seg] : undefined;
    if (d.type === "object") s = (d.shape as Record<string, z.ZodType>)[String(seg)];
    else if (d.type === "array") s = d.element as z.ZodType;
    else if (d.type === "record") s = d.valueType as z.ZodType;
    else if (d.type === "tuple") s = (d.items as z.ZodType[])[Number(seg)];
    else return undefined;
  }
  return s;
}

/** Field names the object schema at a path accepts. */
export function objectKeysAt(root: z.ZodType, data: unknown, path: ReadonlyArray<PropertyKey>): string[] {
  const s = schemaAt(root, data, path);
  if (!s) return [];
  const d = defOf(s);
  return d.type === "object" ? Object.keys(d.shape as object) : [];
}
