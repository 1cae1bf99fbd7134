import type { LoadedTask } from "../model/environment";

/** Models often submit a JSON object as a string: read it as the object. */
export function asStructured(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const s = value.trim();
  if (!(s.startsWith("{") || s.startsWith("["))) return value;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return value;
  }
}

/** Read a dotted path (`a.b.0.c`) from a value; undefined where any step is missing. An empty path is the value itself. */
export function getPath(value: unknown, dotted: string | undefined): unknown {
  if (!dotted) return value;
  let cur: unknown = asStructured(value);
  for (const key of dotted.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The gold value for a field: `target.<field>`, else `target.fields.<field>`; the whole target when no field is named. */
export function expectedValue(task: LoadedTask, field: string | undefined): unknown {
  const target = task.target;
  if (!field) return target;
  const direct = getPath(target, field);
  if (direct !== undefined) return direct;
  return getPath(getPath(target, "fields"), field);
}

/** A short, stable text for messages and comparisons of non-string values. */
export function show(value: unknown, max = 200): string {
  const s = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
