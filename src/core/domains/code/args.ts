/**
 * Argument readers for tool calls. The policy's JSON is untrusted: each reader returns
 * the value or a message naming the argument, which the tool hands back as a
 * recoverable error.
 */
export type Arg<T> = { ok: true; value: T } | { ok: false; message: string };

export function stringArg(
  args: Record<string, unknown>,
  name: string,
  opts: { optional?: boolean; allowEmpty?: boolean } = {},
): Arg<string | undefined> {
  const v = args[name];
  if (v === undefined || v === null)
    return opts.optional ? { ok: true, value: undefined } : { ok: false, message: `missing argument '${name}' (a string)` };
  if (typeof v !== "string") return { ok: false, message: `argument '${name}' must be a string, got ${typeof v}` };
  if (!opts.allowEmpty && v === "") return { ok: false, message: `argument '${name}' must not be empty` };
  return { ok: true, value: v };
}

export function intArg(args: Record<string, unknown>, name: string, min: number): Arg<number | undefined> {
  const v = args[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  const n = typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n)) return { ok: false, message: `argument '${name}' must be an integer` };
  if (n < min) return { ok: false, message: `argument '${name}' must be at least ${min}, got ${n}` };
  return { ok: true, value: n };
}

export function numberArg(args: Record<string, unknown>, name: string): Arg<number | undefined> {
  const v = args[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return { ok: false, message: `argument '${name}' must be a positive number` };
  return { ok: true, value: n };
}

export function boolArg(args: Record<string, unknown>, name: string): Arg<boolean | undefined> {
  const v = args[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  if (typeof v !== "boolean") return { ok: false, message: `argument '${name}' must be true or false` };
  return { ok: true, value: v };
}

/** A tool result for bad arguments or a refused path: the agent reads it and tries again. */
export function toolError(message: string): { output: string; status: "error"; error: string } {
  return { output: `error: ${message}`, status: "error", error: message };
}
