import { type FieldComparator, show, verdict } from "./field-result";

const ARTICLES = new Set(["a", "an", "the"]);

/**
 * Text as it should be compared: Unicode-normalised, lower case, punctuation dropped
 * (except inside numbers: "1.5" keeps its dot), articles dropped, whitespace collapsed.
 * Kept apart from normalize.ts's normalizeText (the exact verifier's modes): merging them would change scores.
 */
export function comparableWords(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/(\d)[,](\d{3})/g, "$1$2")
    .replace(/(?<!\d)[.](?!\d)|[^\p{L}\p{N}.%$\s]/gu, " ")
    .split(/\s+/)
    .filter((w) => w && !ARTICLES.has(w))
    .join(" ");
}

/** Equal after normalisation. */
export const compareText: FieldComparator = (actual, gold) => {
  if (typeof gold !== "string" && typeof gold !== "number") return verdict(false, `the gold value ${show(gold)} is not text`);
  if (typeof actual !== "string" && typeof actual !== "number") return verdict(false, `the answer ${show(actual)} is not text`);
  const a = comparableWords(String(actual));
  const g = comparableWords(String(gold));
  return a === g ? verdict(true, `"${a}" matches`) : verdict(false, `"${show(actual)}" differs from "${show(gold)}"`);
};
