/** How exact matching treats text: as-is, collapsed whitespace, lower-cased, or letters/digits only. */
export type NormalizeMode = "none" | "whitespace" | "lower" | "text";

/** Text under one of the exact verifier's modes; the document comparators' comparableWords (text-norm.ts) is looser on purpose, and merging them would change scores. */
export function normalizeText(s: string, mode: NormalizeMode): string {
  switch (mode) {
    case "none":
      return s;
    case "whitespace":
      return s.trim().replace(/\s+/g, " ");
    case "lower":
      return s.trim().replace(/\s+/g, " ").toLowerCase();
    case "text":
      return s
        .toLowerCase()
        .normalize("NFKD")
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim();
  }
}

/** A value as text for comparison: strings as they are, everything else as JSON. */
export function asText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  return JSON.stringify(v);
}

/**
 * A number from a model's answer: 1234.5, "1,234.5", "$1,234", "(12)" (negative),
 * "12%", "1.2e3". Null when the text holds no single number.
 */
export function parseNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  let s = v.trim();
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1] ?? "";
  }
  s = s.replace(/[$€£¥%\s]/g, "").replace(/,(?=\d{3}(\D|$))/g, "");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return null;
  const n = Number(s);
  if (!Number.isFinite(n)) return null;
  return negative ? -n : n;
}

/** |a - b| within max(abs_tol, rel_tol * |b|). */
export function withinTolerance(actual: number, expected: number, relTol: number, absTol: number): boolean {
  return Math.abs(actual - expected) <= Math.max(absTol, relTol * Math.abs(expected));
}
