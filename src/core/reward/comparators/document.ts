import { autoComparator } from "./auto";
import { withCitationCheck } from "./cite-check";
import { compareDate } from "./date";
import { compareEntities } from "./entities";
import type { FieldComparator } from "./field-result";
import { compareQuantityWithUnits } from "./measure";
import { compareMoney } from "./money";
import { comparePercent } from "./percent";
import type { Comparator } from "./registry";
import { compareText } from "./text-norm";

/** A pure field comparator as a registry comparator (tolerances and threshold come from the field spec). */
function adapt(fn: FieldComparator): Comparator {
  return (actual, expected, spec) => {
    if (actual === undefined || actual === null) return { score: 0, passed: false, reason: "field missing from the answer" };
    return fn(actual, expected, spec);
  };
}

/** Comparators for financial and legal answers; `number` and `text` here understand units and legal spellings. */
const documentComparators = {
  money: adapt(compareMoney),
  percent: adapt(comparePercent),
  date: adapt(compareDate),
  entities: adapt(compareEntities),
  quantity: adapt(compareQuantityWithUnits),
  "legal-text": adapt(compareText),
} satisfies Record<string, Comparator>;

type DocumentComparatorName = keyof typeof documentComparators;

/** The document comparators as the table has them: each wrapped in the citation check. */
export const citedDocumentComparators = Object.fromEntries(
  Object.entries(documentComparators).map(([name, fn]) => [name, withCitationCheck(fn)]),
) as Record<DocumentComparatorName, Comparator>;

/**
 * auto picks among the document comparators for figures and text, and defers to `shared` (the
 * table) for judge, exact and json. The citation check is applied inside auto, with the task's own `cite` setting.
 */
export function documentAuto(shared: (name: string) => Comparator | undefined): Comparator {
  return autoComparator((name) => {
    if (name === "number") return documentComparators.quantity;
    if (name === "text") return documentComparators["legal-text"];
    return documentComparators[name as DocumentComparatorName] ?? shared(name);
  });
}
