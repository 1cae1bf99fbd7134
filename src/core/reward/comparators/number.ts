import { type FieldComparator, show, verdict } from "./field-result";
import { parseQuantity, type QuantityKind, sameQuantity } from "./quantity";

/**
 * Compare figures whose unit is given by the gold value: "money" and "percent" refuse an
 * answer in the other unit; a plain gold number accepts any unit-less or currency form.
 */
export function compareQuantity(expectKind: QuantityKind | "any"): FieldComparator {
  return (actual, gold, opts = {}) => {
    const g = parseQuantity(gold);
    if (!g) return verdict(false, `the gold value ${show(gold)} is not a number`);
    const a = parseQuantity(actual);
    if (!a) return verdict(false, `no number in the answer ${show(actual)}`);
    const want = expectKind === "any" ? g.kind : expectKind;
    if (want === "money" && a.kind === "percent") return verdict(false, `${show(actual)} is a percentage, a money amount was expected`);
    if (want === "percent" && a.kind === "money") return verdict(false, `${show(actual)} is a money amount, a percentage was expected`);
    if (sameQuantity(a, g, opts)) return verdict(true, `${show(actual)} matches ${show(gold)}`);
    // A percentage written as a fraction ("0.308" for "30.8%").
    if (want === "percent" && a.kind === "plain" && Math.abs(a.value) <= 1.5) {
      const asPercent = { ...a, value: a.value * 100, mantissa: a.mantissa * 100, decimals: Math.max(0, a.decimals - 2) };
      if (sameQuantity(asPercent, g, opts)) return verdict(true, `${show(actual)} (a fraction) matches ${show(gold)}`);
    }
    return verdict(false, `${show(actual)} (${a.value}) differs from ${show(gold)} (${g.value})`);
  };
}

export const compareNumber = compareQuantity("any");
