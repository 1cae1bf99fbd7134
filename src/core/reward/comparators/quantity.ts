/**
 * Reading numbers the way financial filings and analysts write them: "$1,577 million",
 * "1577.00", "(370)" (negative), "-3.7", "30.8%", "1.2 billion", "$2,018mn", "USD 5.4bn".
 * The comparators (money, percent, number) and the citation check share this parser.
 */

export type QuantityKind = "money" | "percent" | "plain";

export interface Quantity {
  /** The value with the written scale applied ("1.2 billion" → 1.2e9); percentages stay in percent units (30.8). */
  value: number;
  /** The value as written, before the scale word ("1.2 billion" → 1.2). */
  mantissa: number;
  /** Multiplier from a scale word, 1 when none was written. */
  scale: number;
  kind: QuantityKind;
  /** Digits written after the decimal point of the mantissa. */
  decimals: number;
  /** Significant digits of the mantissa as written. */
  significant: number;
  /** Where it was found in the source text. */
  start: number;
  end: number;
}

const SCALES: Record<string, number> = {
  thousand: 1e3,
  thousands: 1e3,
  k: 1e3,
  million: 1e6,
  millions: 1e6,
  mn: 1e6,
  mm: 1e6,
  m: 1e6,
  mil: 1e6,
  billion: 1e9,
  billions: 1e9,
  bn: 1e9,
  b: 1e9,
  trillion: 1e12,
  trillions: 1e12,
  tn: 1e12,
};

// sign/paren, currency, digits with thousands separators and decimals, optional close paren,
// optional percent or scale word. Written as one pattern so a match gives every part's position.
const QUANTITY =
  /(?<open>\()?\s?(?<minus>[-−–])?\s?(?<cur>\$|US\$|USD\s?|€|£|EUR\s?|GBP\s?)?\s{0,3}(?<minus2>[-−–])?(?<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?<close>\))?(?:\s?(?<pct>%|percent\b|per cent\b|pct\b)|\s?(?<scale>thousands?|millions?|billions?|trillions?|mn|mm|bn|tn|mil|[kmb])\b)?/giu;

function countDigits(num: string): { decimals: number; significant: number } {
  const plain = num.replace(/,/g, "");
  const dot = plain.indexOf(".");
  const decimals = dot < 0 ? 0 : plain.length - dot - 1;
  const digits = plain.replace(".", "").replace(/^0+/, "");
  // Trailing zeros of an integer ("1500") are not known to be significant; of a decimal ("1.50") they are.
  const significant = dot < 0 ? digits.replace(/0+$/, "").length || 1 : digits.length || 1;
  return { decimals, significant };
}

/** Every quantity written in `text`, in order. */
export function findQuantities(text: string): Quantity[] {
  const out: Quantity[] = [];
  for (const m of text.matchAll(QUANTITY)) {
    const g = m.groups ?? {};
    const num = g.num ?? "";
    // A digit run glued to letters ("10-K", "Q2", "FY2022") is a label, not a quantity.
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const before = text[start - 1] ?? "";
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 2);
    if (!g.open && !g.minus && !g.cur && (/[\p{L}_]/u.test(before) || /^-\p{L}/u.test(after))) continue;
    const negative = Boolean(g.minus || g.minus2 || (g.open && g.close));
    const mantissa = Number(num.replace(/,/g, "")) * (negative ? -1 : 1);
    if (!Number.isFinite(mantissa)) continue;
    const scaleWord = g.scale?.toLowerCase();
    // A bare "m"/"b"/"k" only counts as a scale right after a number with a currency ("$5m"),
    // otherwise "5 m" (metres) or "Q2 b" would be misread.
    const scale = scaleWord && (scaleWord.length > 1 || g.cur) ? (SCALES[scaleWord] ?? 1) : 1;
    const kind: QuantityKind = g.pct ? "percent" : g.cur ? "money" : "plain";
    const { decimals, significant } = countDigits(num);
    let end = m.index + m[0].length;
    if (scale === 1 && scaleWord) end -= m[0].length - m[0].search(/\s?[kmb]$/i);
    out.push({ value: mantissa * scale, mantissa, scale, kind, decimals, significant, start, end });
  }
  return out;
}

/**
 * The one quantity an answer states. A bare answer ("$11,588.00") is the usual case; a
 * sentence ("Adj. EBITDA was $2,018mn in FY 2023") gives the first quantity with a unit,
 * else the first number that is not a year.
 */
export function parseQuantity(input: unknown): Quantity | null {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return null;
    const s = String(input);
    const { decimals, significant } = countDigits(s.replace("-", ""));
    return { value: input, mantissa: input, scale: 1, kind: "plain", decimals, significant: Math.max(significant, 15), start: 0, end: s.length };
  }
  if (typeof input !== "string") return null;
  const all = findQuantities(input);
  if (all.length === 0) return null;
  const withUnit = all.find((q) => q.kind !== "plain" || q.scale !== 1);
  if (withUnit) return withUnit;
  const notYear = all.find((q) => !(q.decimals === 0 && q.mantissa >= 1900 && q.mantissa <= 2100 && all.length > 1));
  return notYear ?? all[0] ?? null;
}

export interface NumberMatchOptions {
  rel_tol?: number;
  abs_tol?: number;
}

/**
 * Whether two quantities state the same figure. Accepts a different scale convention
 * when one side wrote no scale word ("1577.00" in a table "in millions" vs "$1,577
 * million"), and rounding when the answer keeps at least three significant digits
 * ("$11.6 billion" for 11,588 million) — "$12 billion" is too coarse and is rejected.
 */
export function sameQuantity(actual: Quantity, gold: Quantity, opts: NumberMatchOptions = {}): boolean {
  const candidates: Array<[number, number]> = [[actual.value, 1]];
  if (actual.scale === 1 && gold.scale !== 1) candidates.push([actual.mantissa * gold.scale, gold.scale]);
  if (gold.scale === 1 && actual.scale !== 1) {
    for (const implied of [1e3, 1e6, 1e9]) candidates.push([actual.value / implied, 1 / implied]);
  }
  for (const [a, factor] of candidates) {
    const g = gold.value;
    const roundingStep = actual.significant >= 3 ? 0.5 * 10 ** -actual.decimals * Math.abs(actual.scale * factor) : 0;
    const tol = Math.max(opts.abs_tol ?? 0, (opts.rel_tol ?? 1e-6) * Math.abs(g), roundingStep);
    if (Math.abs(a - g) <= tol + 1e-9 * Math.max(1, Math.abs(g))) return true;
  }
  return false;
}
