import { formatDate, parseDate } from "./date";
import { type FieldComparator, type FieldResult, show } from "./field-result";
import { findQuantities } from "./quantity";
import { comparableWords } from "./text-norm";

// Legal-form suffixes that name the same party: "Acme Corp." = "Acme Corporation" = "ACME".
const SUFFIXES = /\b(incorporated|inc|corporation|corp|company|co|limited|ltd|llc|l l c|llp|lp|l p|plc|gmbh|ag|sa|s a|nv|bv)\b/g;

/** One party or value written in its canonical form, so equivalent spellings compare equal. */
export function canonicalItem(v: unknown): string {
  if (typeof v === "number") return `n:${v}`;
  if (typeof v === "boolean" || v === null) return `v:${String(v)}`;
  if (Array.isArray(v)) return `[${v.map(canonicalItem).sort().join(",")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined && x !== null && x !== "")
      .map(([k, x]) => `${k.toLowerCase()}=${canonicalItem(x)}`)
      .sort();
    return `{${entries.join(";")}}`;
  }
  const s = String(v).trim();
  const d = s.length <= 40 && /\d{4}/.test(s) ? parseDate(s) : null;
  if (d?.day !== undefined) return `d:${formatDate(d)}`;
  const qs = findQuantities(s);
  const q = qs[0];
  // A value that is a single figure ("$250,000.00", "USD 250,000", "45 days") compares by number and unit word.
  if (q && qs.length === 1) {
    const rest = comparableWords(s.slice(0, q.start) + " " + s.slice(q.end))
      .replace(/\b(usd|us|dollars?|eur|euros?)\b/g, "")
      .trim();
    if (rest.split(" ").filter(Boolean).length <= 2) return `q:${q.kind === "percent" ? "%" : ""}${q.value}:${rest}`;
  }
  const t = comparableWords(s).replace(SUFFIXES, " ").replace(/\s+/g, " ").trim();
  return `t:${t}`;
}

/** A list given as an array, or as text separated by semicolons or new lines. */
export function asItems(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") {
    return v
      .split(/[;\n]/)
      .map((s) => s.trim())
      .filter(Boolean);
  }
  return null;
}

/** Precision, recall and F1 of two multisets of items compared by their canonical form. */
export function setF1(
  actual: unknown[],
  gold: unknown[],
): { precision: number; recall: number; f1: number; missing: unknown[]; extra: unknown[] } {
  const left = new Map<string, unknown[]>();
  for (const g of gold) {
    const k = canonicalItem(g);
    left.set(k, [...(left.get(k) ?? []), g]);
  }
  const extra: unknown[] = [];
  let hits = 0;
  for (const a of actual) {
    const bucket = left.get(canonicalItem(a));
    if (bucket && bucket.length > 0) {
      bucket.pop();
      hits++;
    } else extra.push(a);
  }
  const missing = [...left.values()].flat();
  if (gold.length === 0 && actual.length === 0) return { precision: 1, recall: 1, f1: 1, missing, extra };
  const precision = actual.length ? hits / actual.length : 0;
  const recall = gold.length ? hits / gold.length : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, missing, extra };
}

/** Set F1 over parties, dates, amounts or discrepancy records; passes at `threshold` (default 1). */
export const compareEntities: FieldComparator = (actual, gold, opts = {}): FieldResult => {
  const g = asItems(gold);
  if (!g) return { score: 0, passed: false, reason: `the gold value ${show(gold)} is not a list` };
  const a = asItems(actual);
  if (!a) return { score: 0, passed: false, reason: `the answer ${show(actual)} is not a list` };
  const r = setF1(a, g);
  const threshold = opts.threshold ?? 1;
  const parts = [`F1 ${r.f1.toFixed(3)} (precision ${r.precision.toFixed(3)}, recall ${r.recall.toFixed(3)})`];
  if (r.missing.length) parts.push(`missing ${r.missing.map(show).join(", ")}`);
  if (r.extra.length) parts.push(`not in the gold list ${r.extra.map(show).join(", ")}`);
  return { score: r.f1, passed: r.f1 >= threshold - 1e-12, reason: parts.join("; ") };
};
