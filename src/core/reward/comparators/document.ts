import { autoComparator } from "./auto";
import { withCitationCheck } from "./cite-check";
import { compareDate } from "./date";
import { compareEntities } from "./entities";
import type { FieldComparator } from "./field-result";
import { compareQuantityWithUnits } from "./measure";
import { compareMoney } from "./money";
import { comparePercent } from "./percent";
import { type Comparator, findComparator, registerComparator } from "./registry";
import { compareText } from "./text-norm";

/** A pure field comparator as a registry comparator (tolerances and threshold come from the field spec). */
function adapt(fn: FieldComparator): Comparator {
  return (actual, expected, spec) => {
    if (actual === undefined || actual === null) return { score: 0, passed: false, reason: "field missing from the answer" };
    return fn(actual, expected, spec);
  };
}

/** Comparators for financial and legal answers; `number` and `text` here understand units and legal spellings. */
const documentComparators: Record<string, Comparator> = {
  money: adapt(compareMoney),
  percent: adapt(comparePercent),
  date: adapt(compareDate),
  entities: adapt(compareEntities),
  quantity: adapt(compareQuantityWithUnits),
  "legal-text": adapt(compareText),
};

for (const [name, fn] of Object.entries(documentComparators)) registerComparator(name, withCitationCheck(fn));
// auto picks among these for figures and text, and defers to the shared registry for judge, exact and json.
// The citation check is applied inside auto, with the task's own `cite` setting.
registerComparator(
  "auto",
  autoComparator((name) => {
    if (name === "number") return documentComparators.quantity;
    if (name === "text") return documentComparators["legal-text"];
    return documentComparators[name] ?? findComparator(name);
  }),
);
