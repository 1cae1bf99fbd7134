/** What one field comparator says about one answer field against its gold value. */
export interface FieldResult {
  /** In [0, 1]; 1 for a match. Set comparators (entities) give partial credit. */
  score: number;
  passed: boolean;
  /** Why, in words a person reading the reward breakdown understands. */
  reason: string;
}

/** Tolerances and thresholds a field may set (a subset of the manifest's FieldSpec). */
export interface FieldOptions {
  rel_tol?: number;
  abs_tol?: number;
  threshold?: number;
  /** Figures: whether a rounding of the gold counts ("gold", the default) or only rel_tol / abs_tol ("none"). */
  rounding?: "gold" | "none";
}

export type FieldComparator = (actual: unknown, gold: unknown, opts?: FieldOptions) => FieldResult;

export function show(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "nothing" : s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

export function verdict(passed: boolean, reason: string): FieldResult {
  return { score: passed ? 1 : 0, passed, reason };
}
