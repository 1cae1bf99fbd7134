import { asText, normalizeText, parseNumber, withinTolerance } from "../normalize";
import { show } from "../answer-path";
import { compareMeasure } from "./measure";
import type { Comparator } from "./registry";
import { parseMeasure } from "./units";

const missing = (actual: unknown) =>
  actual === undefined || actual === null ? { score: 0, passed: false, reason: "field missing from the answer" } : null;

/** Byte-for-byte after trimming the ends. */
export const exactComparator: Comparator = (actual, expected) =>
  missing(actual) ??
  (asText(actual).trim() === asText(expected).trim()
    ? { score: 1, passed: true }
    : { score: 0, passed: false, reason: `expected ${show(expected)}, got ${show(actual)}` });

/** Case, punctuation and spacing ignored. */
export const textComparator: Comparator = (actual, expected) =>
  missing(actual) ??
  (normalizeText(asText(actual), "text") === normalizeText(asText(expected), "text")
    ? { score: 1, passed: true }
    : { score: 0, passed: false, reason: `expected ${show(expected)}, got ${show(actual)}` });

/** Numbers within rel_tol (default 1e-6) or abs_tol; a gold with a physical unit ("148.5 MW") is compared with its unit, converted. */
export const numberComparator: Comparator = (actual, expected, spec) => {
  const m = missing(actual);
  if (m) return m;
  const measure = parseMeasure(expected);
  if (measure) return compareMeasure(actual, measure, expected, spec);
  const e = parseNumber(expected);
  if (e === null) throw new Error(`gold value ${show(expected)} is not a number`);
  const a = parseNumber(actual);
  if (a === null) return { score: 0, passed: false, reason: `${show(actual)} is not a number` };
  const ok = withinTolerance(a, e, spec.rel_tol ?? 1e-6, spec.abs_tol ?? 0);
  return ok ? { score: 1, passed: true } : { score: 0, passed: false, reason: `expected ${e}, got ${a}` };
};

/** Structural equality of JSON values, object key order ignored. */
export const jsonComparator: Comparator = (actual, expected) => {
  const m = missing(actual);
  if (m) return m;
  const a = typeof actual === "string" ? tryParse(actual) : actual;
  return deepEqual(a, expected)
    ? { score: 1, passed: true }
    : { score: 0, passed: false, reason: `expected ${show(expected)}, got ${show(actual)}` };
};

function tryParse(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}
