import type { ComparatorName } from "../../schema/comparators";
import { exactComparator, jsonComparator, numberComparator, textComparator } from "./basic";
import { citedDocumentComparators, documentAuto } from "./document";
import { judgeComparator } from "./judge";
import type { Comparator } from "./registry";

/**
 * Every field comparator by the name a manifest or a task gives it (schema/comparators.ts's
 * COMPARATOR_NAMES): a name without an entry is a compile error. A new comparator is its
 * file, its name there and its line here.
 */
export const COMPARATORS: Record<ComparatorName, Comparator> = {
  exact: exactComparator,
  text: textComparator,
  number: numberComparator,
  json: jsonComparator,
  judge: judgeComparator,
  // The document domain's: `number` and `text` there understand units and legal spellings.
  ...citedDocumentComparators,
  auto: documentAuto((name) => COMPARATORS[name as ComparatorName]),
};
