import { type FieldResult, show } from "./field-result";
import { findQuantities, parseQuantity, sameQuantity } from "./quantity";
import { sameMeasure } from "./measure";
import { comparableWords } from "./text-norm";
import { findMeasures, parseMeasure } from "./units";

/** A citation as a report gives it: a document and a 1-based page. */
export interface CitedPage {
  document: string;
  page: number;
}

/** Looks up a page's text; undefined when the document or page does not exist. */
export type PageLookup = (document: string, page: number) => string | undefined;

/**
 * The words of `text` that state `value`, or undefined when none does: the same figure (any
 * scale convention; with a physical unit, the same amount in a unit of the same dimension —
 * a page saying "148.5 MW" does not state "148.5 GW"), or the same words.
 */
export function pageStates(text: string, value: unknown): string | undefined {
  const measure = parseMeasure(value);
  if (measure) {
    const m = findMeasures(text).find((p) => p.kind === measure.kind && sameMeasure(p, measure, {}));
    return m ? text.slice(m.start, m.end) : undefined;
  }
  const q = parseQuantity(value);
  if (q) {
    // Filings write "$ 16,388" across table cells; the quantity reader skips the gap.
    const p = findQuantities(text, { table: true }).find((p) => sameQuantity(p, q, { tableScales: true }) || sameQuantity(q, p));
    return p ? text.slice(p.start, p.end) : undefined;
  }
  if (typeof value !== "string") return undefined;
  const needle = comparableWords(value);
  return needle.length > 0 && comparableWords(text).includes(needle) ? value : undefined;
}

/** More distinct pages than this cited for one value is a sweep of the document, not a citation. */
export const MAX_CITED_PAGES = 10;

/** The citation check: some cited page exists and contains the value; citing page after page until one does is not a citation. */
export function checkCitations(value: unknown, citations: unknown, lookup: PageLookup): FieldResult {
  const cited = Array.isArray(citations) ? citations.filter(isCitedPage) : [];
  if (cited.length === 0) return { score: 0, passed: false, reason: "no citation with a document and a page was given" };
  const distinct = new Set(cited.map((c) => `${c.document}\0${c.page}`)).size;
  if (distinct > MAX_CITED_PAGES)
    return {
      score: 0,
      passed: false,
      reason: `${distinct} pages cited; a citation names the few pages the figure is on (at most ${MAX_CITED_PAGES})`,
    };
  const missing: string[] = [];
  for (const c of cited) {
    const text = lookup(c.document, c.page);
    if (text === undefined) {
      missing.push(`${c.document} p.${c.page}`);
      continue;
    }
    const span = pageStates(text, value);
    if (span !== undefined) return { score: 1, passed: true, reason: `${c.document} p.${c.page} states "${show(span)}"` };
  }
  const where = cited.map((c) => `${c.document} p.${c.page}`).join(", ");
  const bad = missing.length ? ` (${missing.join(", ")} does not exist)` : "";
  return { score: 0, passed: false, reason: `no cited page states ${show(value)}: ${where}${bad}` };
}

function isCitedPage(c: unknown): c is CitedPage {
  if (!c || typeof c !== "object") return false;
  const o = c as Record<string, unknown>;
  return typeof o.document === "string" && typeof o.page === "number" && Number.isInteger(o.page);
}
