import vm from "node:vm";

/** How long one expression may run: a watch is re-evaluated on every stop, a loop must not hang the editor. */
const TIMEOUT_MS = 100;

export type ExpressionResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Evaluates a JavaScript expression over debugger state (breakpoint conditions, watch and
 * hover expressions, `=` in the Debug Console). It runs in a fresh `node:vm` context holding
 * only a copy of `scope`, under a short timeout, so it can neither reach the extension host
 * nor change the rollout. The value comes back as plain JSON data (functions and other
 * non-data dropped), safe to show and expand.
 */
export function evaluateExpression(expression: string, scope: object): ExpressionResult {
  const text = expression.trim();
  if (!text) return { ok: false, error: "empty expression" };
  let raw: unknown;
  try {
    raw = vm.runInNewContext(`(${text}\n)`, structuredClone(scope), { timeout: TIMEOUT_MS });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ok: false, error: /timed out/i.test(msg) ? `'${text}' ran past ${TIMEOUT_MS} ms` : msg };
  }
  return { ok: true, value: toData(raw) };
}

/** A value from the sandboxed context as plain data of this realm; undefined stays undefined. */
function toData(v: unknown): unknown {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  if (typeof v === "bigint") return v.toString();
  try {
    return JSON.parse(JSON.stringify(v) ?? "null") as unknown;
  } catch {
    // Cycles and the like: its text is all that can be shown.
    return String(v);
  }
}
