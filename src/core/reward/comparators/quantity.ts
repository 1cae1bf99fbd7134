/**
 * Reading numbers the way financial filings and analysts write them: "$1,577 million",
 * "1577.00", "(370)" and "($1,577 million)" (negative), "-3.7", "30.8%", "1.2 billion",
 * "$2,018mn", "USD 5.4bn". The comparators (money, percent, number) and the citation
 * check share this parser.
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
  /** The currency named ("USD", "EUR", "GBP"), when one was. */
  currency?: string;
  /** Digits written after the decimal point of the mantissa. */
  decimals: number;
  /** Significant digits of the mantissa as written. */
  significant: number;
  /**
   * Power of ten of the last significant digit of the mantissa: "382" → 0, "1,500" → 2,
   * "2.8" → −1. Zeros after the decimal point are padding ("382.00" → 0): data sets
   * write every figure with two decimals whatever its precision.
   */
  lastDigit: number;
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

/** Currency marks and codes written before a figure ("$", "€", "JPY ") or after it ("USD", "euros"). */
const CURRENCY: Record<string, string> = {
  $: "USD",
  us$: "USD",
  usd: "USD",
  dollar: "USD",
  dollars: "USD",
  "€": "EUR",
  eur: "EUR",
  euro: "EUR",
  euros: "EUR",
  "£": "GBP",
  gbp: "GBP",
  pound: "GBP",
  pounds: "GBP",
  "¥": "JPY",
  jpy: "JPY",
  yen: "JPY",
  cny: "CNY",
  rmb: "CNY",
  yuan: "CNY",
  "₹": "INR",
  inr: "INR",
  rupee: "INR",
  rupees: "INR",
  chf: "CHF",
  cad: "CAD",
  c$: "CAD",
  aud: "AUD",
  a$: "AUD",
  hkd: "HKD",
  hk$: "HKD",
};

// Sign words or marks, an opening bracket, currency, digits with thousands separators and
// decimals, a closing bracket, then a percent or scale word, a currency written after the
// figure ("1,577 million EUR"), and a bracket closing after that ("($1,577 million)"). One pattern, so a match gives every part's position.
const QUANTITY =
  /(?<open>\()?\s?(?<neg>(?:negative|minus)\s+)?(?<minus>[-−–])?\s?(?<cur>\$|US\$|C\$|A\$|HK\$|€|£|¥|₹|(?:USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|HKD)\s?)?\s{0,3}(?<open2>\()?(?<minus2>[-−–])?(?<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE](?<exp>[-+]?\d{1,2})\b)?(?<close>\))?(?:\s?(?<pct>%|percent\b|per cent\b|pct\b|percentage points?\b)|(?<sp>\s)?(?<scale>thousands?|millions?|billions?|trillions?|mn|mm|bn|tn|mil|[kmb])\b)?(?:\s?(?<cur2>USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|HKD|dollars?|euros?|pounds?|yen|yuan|rupees?)\b)?(?<close2>\s?\))?/giu;

/**
 * The same, where a figure's thousands may also be grouped by spaces as SI and many European
 * styles write them ("1 577 million", "12\u202f345.6"): the same space between every group of
 * three. Without it "1 577 million" read as 577 million (a wrong gold of 577 million accepted)
 * and "$1 577 million" as $1. Answers are read so; a document's text is not (findQuantities'
 * `table`): columns of a table row come out of a PDF as figures split by single spaces.
 */
const QUANTITY_SPACED = new RegExp(
  QUANTITY.source.replace("(?<num>", "(?<num>\\d{1,3}(?<gap>[ \\u00a0\\u2009\\u202f])\\d{3}(?!\\d)(?:\\k<gap>\\d{3}(?!\\d))*(?:\\.\\d+)?|"),
  QUANTITY.flags,
);

/** The digits of a figure as written, without its thousands separators (commas, or the spaces of QUANTITY_SPACED). */
const digitsOnly = (num: string) => num.replace(/[,\s]/g, "");

function countDigits(num: string): { decimals: number; significant: number; lastDigit: number } {
  const plain = digitsOnly(num);
  const dot = plain.indexOf(".");
  const decimals = dot < 0 ? 0 : plain.length - dot - 1;
  const digits = plain.replace(".", "").replace(/^0+/, "");
  // Trailing zeros of an integer ("1500") are not known to be significant; of a decimal ("1.50") they are.
  const significant = dot < 0 ? digits.replace(/0+$/, "").length || 1 : digits.length || 1;
  const intPart = dot < 0 ? plain : plain.slice(0, dot);
  const fraction = (dot < 0 ? "" : plain.slice(dot + 1)).replace(/0+$/, "");
  const intZeros = /[1-9]/.test(intPart) ? (intPart.match(/0+$/)?.[0].length ?? 0) : 0;
  const lastDigit = fraction.length ? -fraction.length : intZeros;
  return { decimals, significant, lastDigit };
}

/**
 * Words after which a bare whole number is a label's, not a quantity: "Form 10", "Item 7",
 * "Note 12", "S&P 500" (a name holding "&"), "Boeing 737" is not caught (a model number
 * after a company name is read as a figure; one not of the gold's unit is then ignored).
 */
const LABEL_BEFORE =
  /(?:\b(?:form|item|note|notes|exhibit|section|rule|article|part|schedule|class|series|tier|chapter|page|pages|p\.|pp\.|table|figure|model|version|level|phase|stage|no\.)|#|\S&\S*)\s*$/i;

/**
 * Whether the figure at `start` names a thing rather than stating a quantity: a label's
 * number ("Item 7", "S&P 500"), or a whole number glued to a capital M, B or K with no
 * currency and followed by a possessive or a capitalised word ("3M's revenue", "3M Company"):
 * a company, not 3 million.
 */
function isName(text: string, start: number, g: Record<string, string | undefined>): boolean {
  const bare = !g.cur && !g.cur2 && !g.pct && !g.open && !g.minus && !g.neg && !/[.,\s]/.test(g.num ?? "");
  if (!bare) return false;
  if (!g.scale && LABEL_BEFORE.test(text.slice(Math.max(0, start - 24), start))) return true;
  if (g.scale && /^[MBK]$/.test(g.scale) && !g.sp) {
    const end = text.indexOf(g.scale, start + (g.num ?? "").length) + 1;
    return /^(?:['’]s\b|\s+[A-Z]|-\p{L})/u.test(text.slice(end, end + 3));
  }
  return false;
}

/**
 * Every quantity written in `text`, in order. `table`: the text is a document's (a filing's page),
 * where figures split by single spaces are a table's columns, not one figure's digit groups.
 */
export function findQuantities(text: string, opts: { table?: boolean } = {}): Quantity[] {
  const out: Quantity[] = [];
  for (const m of text.matchAll(opts.table ? QUANTITY : QUANTITY_SPACED)) {
    const g = m.groups ?? {};
    const num = g.num ?? "";
    // A digit run glued to letters ("10-K", "Q2", "FY2022") is a label, not a quantity.
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const before = text[start - 1] ?? "";
    let end = m.index + m[0].length;
    const after = text.slice(end, end + 2);
    if (!g.open && !g.open2 && !g.minus && !g.cur && !g.neg && (/[\p{L}_]/u.test(before) || /^-\p{L}/u.test(after))) continue;
    if (isName(text, start, g)) continue;
    const opened = Boolean(g.open || g.open2);
    const closed = Boolean(g.close || g.close2);
    const negative = Boolean(g.minus || g.minus2 || g.neg || (opened && closed));
    // Scientific notation ("1.577e9") scales the mantissa as written.
    const exp = g.exp ? Number(g.exp) : 0;
    const magnitude = Number(digitsOnly(num)) * 10 ** exp;
    if (!Number.isFinite(magnitude)) continue;
    const mantissa = negative ? -magnitude : magnitude;
    const scaleWord = g.scale?.toLowerCase();
    // A bare "m"/"b"/"k" counts as a scale with a currency ("$5m") or glued to the digits
    // ("1,577k": not 1,577 read in the gold's scale), unless a label goes on ("10b-5");
    // spaced and without a currency, "5 m" (metres) or "Q2 b" would be misread.
    const glued = scaleWord?.length === 1 && !g.sp && !after.startsWith("-");
    const cur = g.cur2 ?? g.cur;
    const scale = scaleWord && (scaleWord.length > 1 || cur || glued) ? (SCALES[scaleWord] ?? 1) : 1;
    const kind: QuantityKind = g.pct ? "percent" : cur ? "money" : "plain";
    const currency = cur ? CURRENCY[cur.trim().toLowerCase()] : undefined;
    // A closing bracket with no opening one belongs to the surrounding text.
    if (g.close2 && !opened) end -= g.close2.length;
    if (scale === 1 && scaleWord) end -= m[0].length - m[0].search(/\s?[kmb]\)?$/i);
    const digits = countDigits(num);
    out.push({
      value: mantissa * scale,
      mantissa,
      scale,
      kind,
      ...(currency ? { currency } : {}),
      ...digits,
      decimals: Math.max(0, digits.decimals - exp),
      lastDigit: digits.lastDigit + exp,
      start,
      end,
    });
  }
  return out;
}

/** A four-digit whole number that reads as a year ("FY 2023", "in 2019"). */
export function looksLikeYear(q: Quantity): boolean {
  return q.kind === "plain" && q.scale === 1 && q.decimals === 0 && q.mantissa >= 1900 && q.mantissa <= 2100;
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
    const digits = countDigits(s.replace("-", ""));
    return {
      value: input,
      mantissa: input,
      scale: 1,
      kind: "plain",
      ...digits,
      significant: Math.max(digits.significant, 15),
      start: 0,
      end: s.length,
    };
  }
  if (typeof input !== "string") return null;
  const all = findQuantities(input);
  if (all.length === 0) return null;
  const withUnit = all.find((q) => q.kind !== "plain" || q.scale !== 1);
  if (withUnit) return withUnit;
  const notYear = all.find((q) => !(looksLikeYear(q) && all.length > 1));
  return notYear ?? all[0] ?? null;
}

/** How far a figure may be from a coarse gold (one whose last digit is 1 % of it or more) as a rounding of it: so a 1 % error is always caught. */
export const MAX_ROUNDING = 0.005;
/** Any figure this close to the gold is the gold, however both are written (a reviewer does not refuse 0.1 %). */
export const NEGLIGIBLE = 0.001;

export interface NumberMatchOptions {
  rel_tol?: number;
  abs_tol?: number;
  /**
   * "gold" (default): an answer counts when it rounds to the gold at the gold's own
   * precision (half a unit of its last significant digit: "$382.00 million" takes
   * $381.603 million), or the gold rounds to the answer's precision and the answer keeps
   * three significant digits ("$11.6 billion" for $11,588 million); either way within
   * 0.5 % of the gold. "none": only rel_tol / abs_tol.
   */
  rounding?: "gold" | "none";
  /**
   * The actual figure is a cell of a filing's table, whose scale ("in thousands", "in
   * millions") is printed elsewhere on the page: a scale-less figure may stand for
   * thousands, millions or billions. For the citation check, never for an answer.
   */
  tableScales?: boolean;
}

/** Half a unit of the last significant digit of `q`, in the units of its value. */
function halfUnit(q: Quantity, factor: number): number {
  return 0.5 * 10 ** q.lastDigit * Math.abs(q.scale * factor);
}

/**
 * Whether `actual` states the same figure as `gold`. A scale-less answer may be written in
 * the gold's scale ("11588" for "$11,588 million", the table convention); a scale word
 * is never ignored: "24.26 million" is not 24.26.
 */
export function sameQuantity(actual: Quantity, gold: Quantity, opts: NumberMatchOptions = {}): boolean {
  const candidates: Array<[number, number]> = [[actual.value, 1]];
  if (actual.scale === 1 && gold.scale !== 1) candidates.push([actual.mantissa * gold.scale, gold.scale]);
  if (opts.tableScales && actual.scale === 1)
    for (const s of [1e3, 1e6, 1e9]) if (s !== gold.scale) candidates.push([actual.mantissa * s, s]);
  const g = gold.value;
  for (const [a, factor] of candidates) {
    const diff = Math.abs(a - g);
    const tol = Math.max(opts.abs_tol ?? 0, (opts.rel_tol ?? 1e-6) * Math.abs(g), 1e-9 * Math.max(1, Math.abs(g)));
    if (diff <= tol) return true;
    if (opts.rounding === "none") continue;
    if (roundingOf(actual, gold, diff, factor)) return true;
  }
  return false;
}

/**
 * Whether `diff` (between the figure, read in the gold's units, and the gold) is a rounding a
 * careful reviewer accepts:
 * - the figure rounds to the gold at the gold's precision (half a unit of its last digit:
 *   "5.43%" for "5.4%"), within 0.5 % when the gold is coarse (its last digit is 1 % of it or
 *   more: "0.02", "$8 billion"), so a 1 % error is always caught;
 * - the gold rounds to the figure's precision, the figure keeping three significant digits
 *   ("$11.6 billion" for $11,588 million), within 0.5 %;
 * - the figure is written at the gold's precision and one unit of its last digit away,
 *   within 0.5 % (a rounding of the working: "24.25" for "24.26", "3.45" for "3.46");
 * - the figure, written at another precision than the gold, is within 0.1 % of it (a figure
 *   worked out from rounded inputs); at the gold's precision it is another figure.
 */
export function roundingOf(actual: Quantity, gold: Quantity, diff: number, factor: number): boolean {
  const g = Math.abs(gold.value);
  const cap = MAX_ROUNDING * g;
  // Tiny slack for binary floating point at the boundary of a half unit.
  const eps = 1e-9 * Math.max(1, g);
  const goldHalf = halfUnit(gold, 1);
  if (diff <= (goldHalf < 0.01 * g ? goldHalf : Math.min(goldHalf, cap)) + eps) return true;
  if (actual.significant >= 3 && diff <= Math.min(halfUnit(actual, factor), cap) + eps) return true;
  const samePrecision = Math.abs(halfUnit(actual, factor) - goldHalf) <= eps;
  if (samePrecision && diff <= Math.min(2 * goldHalf, cap) + eps) return true;
  // Between figures written at the same precision 0.1 % is another figure ("$59,286" for "$59,268", digits transposed).
  return !samePrecision && diff <= NEGLIGIBLE * g + eps;
}
