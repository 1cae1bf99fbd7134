/**
 * The field comparators a manifest or a task may name, in one table: the schema's enum
 * (FieldSpec.comparator), the registry's check at start-up and docs/reference.md are all
 * written from it, so none can name a comparator the others lack.
 */
export const COMPARATOR_NAMES = [
  "exact",
  "text",
  "number",
  "json",
  "money",
  "percent",
  "quantity",
  "date",
  "entities",
  "legal-text",
  "judge",
  "auto",
] as const;

export type ComparatorName = (typeof COMPARATOR_NAMES)[number];
