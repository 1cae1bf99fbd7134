import { type FieldComparator, show, verdict } from "./field-result";
import { answerSentence, refusalIn, resultFigure, type Span, workingEnd } from "./answer-reading";
import { findQuantities, looksLikeYear, parseQuantity, type Quantity, type QuantityKind, sameQuantity } from "./quantity";

/** An answer sentence that states more figures than this besides the matching one is a list of candidates, not an answer. */
const MAX_OTHER_FIGURES = 3;
/** Replies longer than this are read no further: a policy pasting whole documents gains nothing from it. */
const MAX_READ_CHARS = 20_000;

/** Why `a` cannot state a figure of the gold's unit, or undefined when its unit fits. */
function unitMismatch(a: Quantity, g: Quantity, want: QuantityKind): string | undefined {
  // Zero of any amount is zero: "$0" answers a gold of "0" (a question's "if none, state 0").
  if (g.value === 0 && want === "plain" && a.kind !== "percent") return undefined;
  if (want === "percent") {
    if (a.kind === "money") return "is a money amount, a percentage was expected";
    if (a.kind === "plain" && a.scale !== 1) return "has a scale word, a percentage was expected";
    return undefined;
  }
  if (a.kind === "percent" && want === "money") return "is a percentage, a money amount was expected";
  if (a.kind === "percent" && (g.scale !== 1 || a.scale !== 1)) return "is a percentage, the gold is a plain number";
  // A gold with neither a currency nor a scale is a ratio or a count: "$24.26" or "24.26 million" is another figure.
  if (want === "plain" && g.scale === 1 && a.kind === "money") return "is a money amount, the gold is a plain number (a ratio or count)";
  if (a.currency && g.currency && a.currency !== g.currency) return `is in ${a.currency}, the gold is in ${g.currency}`;
  return undefined;
}

/**
 * `a` read in the gold's unit: a percentage written as a fraction ("0.308" for "30.8%"),
 * a ratio written as a percentage ("66%" for 0.66; "24.26%" is 0.2426, not 24.26).
 */
function asGoldUnit(a: Quantity, want: QuantityKind): Quantity[] {
  if (want === "plain" && a.kind === "percent")
    return [
      { ...a, kind: "plain", value: a.value / 100, mantissa: a.mantissa / 100, decimals: a.decimals + 2, lastDigit: a.lastDigit - 2 },
    ];
  if (want !== "percent" || a.kind !== "plain") return [a];
  // A bare number for a percentage is read as a fraction only: "30.8" for "30.8%" could be 3,080 %.
  if (Math.abs(a.value) > 1.5) return [];
  return [
    {
      ...a,
      kind: "percent",
      value: a.value * 100,
      mantissa: a.mantissa * 100,
      decimals: Math.max(0, a.decimals - 2),
      lastDigit: a.lastDigit + 2,
    },
  ];
}

/**
 * Compare figures whose unit is given by the gold value (and the task's question, which the
 * task builder writes into it: "$8.70 billion"). "money" and "percent" refuse an answer in
 * the other unit; a plain gold (a ratio or a count) refuses a percentage, a money amount
 * and a scale word. The sign is part of the figure: "($1,577 million)" is negative.
 */
export function compareQuantity(expectKind: QuantityKind | "any"): FieldComparator {
  return (actual, gold, opts = {}) => {
    const g = parseQuantity(gold);
    if (!g) return verdict(false, `the gold value ${show(gold)} is not a number`);
    const text = typeof actual === "string" ? actual.slice(0, MAX_READ_CHARS) : undefined;
    const declined = text === undefined ? undefined : refusalIn(text);
    if (declined) return verdict(false, `the answer declines or hedges ("${declined}"); a refusal is not an answer, whatever the gold`);
    const want = expectKind === "any" ? g.kind : expectKind;
    const read = text === undefined ? null : statedFigure(text, g, want);
    const a = read?.figure ?? parseQuantity(actual);
    if (!a) return verdict(false, `no number in the answer ${show(actual)}`);
    const bad = unitMismatch(a, g, want);
    if (bad) return verdict(false, `${show(actual)} ${bad}`);
    const stated = text === undefined ? show(actual) : `"${text.slice(a.start, a.end)}"`;
    const match = asGoldUnit(a, want).find((x) => sameQuantity(x, g, opts));
    if (!match)
      return verdict(
        false,
        `${stated} (${a.value}${a.kind === "percent" ? "%" : ""}) differs from ${show(gold)} (${g.value}${g.kind === "percent" ? "%" : ""})`,
      );
    if (text !== undefined && read) {
      const alternative = alternativeTo(text, a, g, want, opts);
      if (alternative)
        return verdict(false, `${stated} is given beside ${show(alternative)} (a range or alternatives); an answer states one`);
      // The figures an equation works from ("(53.8% + 55.4% + 56.2%) / 3 = 55.1%") are not alternatives to its result.
      const from = a.start >= workingEnd(read.sentence, text) ? workingEnd(read.sentence, text) : read.sentence.start;
      const others = otherFigures(text.slice(from, read.sentence.end), g, want, opts);
      if (others > MAX_OTHER_FIGURES)
        return verdict(false, `the answer's sentence states ${others + 1} different figures; an answer states one`);
    }
    return verdict(true, `${stated} matches ${show(gold)}${match !== a ? " (a fraction)" : ""}`);
  };
}

/**
 * The figure a reply states as its answer, in the gold's unit, and the sentence stating it:
 * the sentence that answers (the last that concludes, else the first holding a fitting
 * figure), and in it the result (after its last "=", else after "is/was/equals", else its
 * first figure), a figure with a unit mark preferred to a bare one. Null when no figure fits.
 */
function statedFigure(text: string, g: Quantity, want: QuantityKind): { figure: Quantity; sentence: Span } | null {
  const all = findQuantities(text);
  const fits = all.filter((q) => !unitMismatch(q, g, want) && !(looksLikeYear(q) && all.length > 1));
  const inSpan = (s: Span) => fits.filter((q) => q.start >= s.start && q.end <= s.end);
  const sentence = answerSentence(text, (s) => inSpan(s).length > 0);
  if (!sentence) return null;
  const marked = inSpan(sentence).filter((q) => q.kind !== "plain" || q.scale !== 1);
  const figure = resultFigure(text, sentence, marked.length > 0 ? marked : inSpan(sentence));
  return figure ? { figure, sentence } : null;
}

/** Words or marks that join two figures into a range or a choice: "X or Y", "X to Y", "X–Y", "X, Y", "between X and Y". */
export const JOINS_ALTERNATIVES = /^\s*(?:and\/or|or|to|through|and|[-–—/,;])\s*$/i;

/**
 * The figure that the graded figure `a` is offered beside as a range or an alternative
 * ("$1,577 million or $1,600 million", "12.5%–13%"), or undefined. A hedge is not an
 * answer, whichever of its figures comes first. Years and figures that also match the gold
 * ("$1,577 million, or $1.577 billion") are not alternatives.
 */
function alternativeTo(text: string, a: Quantity, g: Quantity, want: QuantityKind, opts: Parameters<typeof sameQuantity>[2]) {
  const all = findQuantities(text).filter((q) => !looksLikeYear(q));
  const i = all.findIndex((q) => q.start === a.start);
  for (const [left, right] of [
    [all[i - 1], a],
    [a, all[i + 1]],
  ] as const) {
    if (i < 0 || !left || !right) continue;
    const other = left === a ? right : left;
    if (unitMismatch(other, g, want) || asGoldUnit(other, want).some((x) => sameQuantity(x, g, opts))) continue;
    // "1,500-1,600": the dash was read as the second figure's minus sign.
    const join = text.slice(left.end, right.start) || (/^[-–]/.test(text.slice(right.start)) ? "-" : "");
    if (JOINS_ALTERNATIVES.test(join)) return text.slice(other.start, other.end);
  }
  return undefined;
}

/** How many distinct figures of the gold's unit the answer states besides those matching the gold (years not counted). */
function otherFigures(text: string, g: Quantity, want: QuantityKind, opts: Parameters<typeof sameQuantity>[2]): number {
  const seen = new Set<number>();
  for (const q of findQuantities(text)) {
    if (looksLikeYear(q) || unitMismatch(q, g, want)) continue;
    if (asGoldUnit(q, want).some((x) => sameQuantity(x, g, opts))) continue;
    seen.add(q.value);
  }
  return seen.size;
}

export const compareNumber = compareQuantity("any");
