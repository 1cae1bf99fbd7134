import { answerSentence, refusalIn, resultFigure, workingEnd } from "./answer-reading";
import { type FieldComparator, type FieldOptions, show, verdict } from "./field-result";
import { compareNumber, JOINS_ALTERNATIVES } from "./number";
import { findQuantities, looksLikeYear, roundingOf } from "./quantity";
import { findMeasures, inBaseUnits, type Measure, parseMeasure } from "./units";

/** Replies longer than this are read no further (as for the other figure comparators). */
const MAX_READ_CHARS = 20_000;

/** Whether two measures of one kind state the same amount: within rel_tol / abs_tol (in the gold's unit), or a rounding a reviewer accepts. */
export function sameMeasure(a: Measure, g: Measure, opts: FieldOptions): boolean {
  const diff = Math.abs(a.base - g.base);
  const tol = Math.max((opts.abs_tol ?? 0) * g.factor, (opts.rel_tol ?? 1e-6) * Math.abs(g.base), 1e-9 * Math.max(1, Math.abs(g.base)));
  if (diff <= tol) return true;
  return opts.rounding !== "none" && roundingOf(inBaseUnits(a), inBaseUnits(g), diff, 1);
}

/**
 * A figure with a physical unit against a gold with one: both converted to base units by
 * js-quantities ("148,500 kW" and "0.1485 GW" are 148.5 MW), refused on a dimension mismatch
 * ("148.5 MWh" is energy, not power) and when no unit is stated (a bare "148.5"). The reply is
 * read as the other figure comparators read it (its answering sentence and result, refusals).
 */
export function compareMeasure(actual: unknown, g: Measure, gold: unknown, opts: FieldOptions = {}) {
  const goldUnit = `${show(gold)} (${g.kind})`;
  if (typeof actual === "number") return verdict(false, `${actual} states no unit; the gold is ${goldUnit}`);
  if (typeof actual !== "string") return verdict(false, `the answer ${show(actual)} is not a figure with a unit`);
  const text = actual.slice(0, MAX_READ_CHARS);
  const declined = refusalIn(text);
  if (declined) return verdict(false, `the answer declines or hedges ("${declined}"); a refusal is not an answer, whatever the gold`);
  const all = findMeasures(text);
  const fits = all.filter((m) => m.kind === g.kind);
  const sentence = answerSentence(text, (s) => fits.some((m) => m.start >= s.start && m.end <= s.end));
  if (!sentence) {
    const other = all[0];
    if (other) return verdict(false, `"${text.slice(other.start, other.end)}" is ${other.kind} (${other.unit}); the gold is ${goldUnit}`);
    return verdict(
      false,
      findQuantities(text).length > 0 ? `${show(actual)} states no unit; the gold is ${goldUnit}` : `no figure in ${show(actual)}`,
    );
  }
  const inSentence = fits.filter((m) => m.start >= sentence.start && m.end <= sentence.end);
  const a = resultFigure(text, sentence, inSentence) as Measure;
  const stated = `"${text.slice(a.start, a.end)}"`;
  if (!sameMeasure(a, g, opts)) return verdict(false, `${stated} (${a.base} in base units) differs from ${show(gold)} (${g.base})`);
  const from = a.start >= workingEnd(sentence, text) ? workingEnd(sentence, text) : sentence.start;
  const other = inSentence.find((m) => m.start >= from && !sameMeasure(m, g, opts));
  if (other) return verdict(false, `${stated} is given beside "${text.slice(other.start, other.end)}"; an answer states one figure`);
  // A bare figure offered as an alternative ("163.4, or 148.5 MW, or 0.1") takes the unit of the one beside it.
  const figures = findQuantities(text).filter((q) => !looksLikeYear(q) && q.start >= from && q.end <= sentence.end);
  const i = figures.findIndex((q) => q.start === a.start);
  for (const [left, right] of [
    [figures[i - 1], figures[i]],
    [figures[i], figures[i + 1]],
  ]) {
    if (i < 0 || !left || !right) continue;
    const join = text.slice(left.end, right.start);
    const bare = left.start === a.start ? right : left;
    if (
      (JOINS_ALTERNATIVES.test(join) || /^\s*,\s*(?:or|and\/or|to)\s*$/i.test(join)) &&
      Math.abs(bare.value - a.figure.value) > 1e-9 * Math.max(1, Math.abs(a.figure.value))
    )
      return verdict(
        false,
        `${stated} is given beside "${text.slice(bare.start, bare.end)}" (a range or alternatives); an answer states one figure`,
      );
  }
  return verdict(true, `${stated} matches ${show(gold)}${a.unit !== g.unit ? ` (${a.unit} converted to ${g.unit})` : ""}`);
}

/**
 * `quantity`: a gold with a physical unit is compared by `compareMeasure`; any other gold as
 * `number` compares figures (scale words, signs, roundings), so "1.2 million" is 1,200,000.
 */
export const compareQuantityWithUnits: FieldComparator = (actual, gold, opts = {}) => {
  const g = parseMeasure(gold);
  return g ? compareMeasure(actual, g, gold, opts) : compareNumber(actual, gold, opts);
};
