import { findQuantities, parseQuantity, type Quantity, sameQuantity } from "../../reward/comparators/quantity";
import type { DocMark, DocPage, DocumentsView, FieldResult } from "../protocol/trajectory";

/**
 * Where a field's value stands on a page: the figures the field comparators would take
 * as the same (the citation check's own test: any scale convention, table scales), or
 * for text the same words, case and spacing aside. Ranges are into the page text.
 */
export function valueRanges(text: string, value: unknown): Array<[number, number]> {
  const q: Quantity | null = parseQuantity(value);
  if (q)
    return findQuantities(text, { table: true }).flatMap((p) =>
      sameQuantity(p, q, { tableScales: true }) || sameQuantity(q, p) ? [[p.start, p.end] as [number, number]] : [],
    );
  if (typeof value !== "string" || value.trim().length < 2) return [];
  const needle = value.trim().toLowerCase().replace(/\s+/g, " ");
  const flat = text.toLowerCase().replace(/\s/g, " ");
  const out: Array<[number, number]> = [];
  for (let at = flat.indexOf(needle); at >= 0 && out.length < 20; at = flat.indexOf(needle, at + needle.length))
    out.push([at, at + needle.length]);
  return out;
}

const isValue = (v: unknown) => v !== undefined && v !== null && (typeof v === "number" || (typeof v === "string" && v.trim() !== ""));

/** The cited span of a citation on a page read, clipped to the text; null when it is the whole page (nothing narrower was cited). */
function citedSpan(page: DocPage, c: DocumentsView["citations"][number]): [number, number] | null {
  let [s, e] = [c.start - page.offset, c.end - page.offset];
  if (c.text && page.text.slice(s, e) !== c.text) {
    const at = page.text.indexOf(c.text);
    if (at < 0) return null;
    [s, e] = [at, at + c.text.length];
  }
  s = Math.max(0, Math.min(s, page.text.length));
  e = Math.max(s, Math.min(e, page.text.length));
  if (e <= s || (s === 0 && e >= page.text.length)) return null;
  return [s, e];
}

/** Tools whose output lists hits across pages (snippets, not a page read). */
const SEARCH_TOOLS = new Set(["search", "find", "list_documents"]);

/** Search results (or a read that names neither document nor page): no page was read there. */
const isSearch = (p: DocPage) => SEARCH_TOOLS.has(p.tool) || (p.document === null && p.page === null);

type Cited = { document: string; page?: number | undefined; text?: string | undefined };

/**
 * The page read a citation points at: the latest read of that very page (document and
 * page), else the latest read of the whole document or of that page number without a
 * document name. Search results never count: a citation of a page seen only in a search
 * snippet was never read, and the panel says so.
 */
function readOf(pages: DocPage[], c: Cited): number | null {
  let exact: number | null = null;
  let loose: number | null = null;
  for (const [i, p] of pages.entries()) {
    if (isSearch(p)) continue;
    const docOk = p.document === null || p.document === c.document;
    const pageOk = c.page === undefined || p.page === null || p.page === c.page;
    if (!docOk || !pageOk) continue;
    if (p.document === c.document && (c.page === undefined || p.page === c.page)) exact = i;
    else loose = i;
  }
  return exact ?? loose;
}

/** The latest search results whose text holds the cited words (where the agent saw them without reading the page). */
function searchOf(pages: DocPage[], c: Cited): number | null {
  const words = c.text?.trim();
  if (!words) return null;
  let at: number | null = null;
  for (const [i, p] of pages.entries()) if (isSearch(p) && p.text.includes(words)) at = i;
  return at;
}

/**
 * Adds to a documents view what the citation display needs: on every page read, the
 * cited spans, the submitted figures of each field and, for a field graded wrong, the
 * gold figure; each citation's page among the pages read (the latest read of it; search
 * results are no read of a page, see readOf); and
 * for each wrong field, the pages read where its gold figure stands.
 */
export function markCitations(view: DocumentsView): DocumentsView {
  const pages = view.pages.map((p): DocPage => ({ ...p, marks: [] }));
  const add = (p: DocPage, m: DocMark) => {
    if (!p.marks!.some((x) => x.start === m.start && x.end === m.end && x.kind === m.kind && x.field === m.field)) p.marks!.push(m);
  };
  const citations = view.citations.map((c) => {
    const at = readOf(pages, c);
    const page = at === null ? undefined : pages[at];
    const span = page ? citedSpan(page, c) : null;
    if (page && span) add(page, { kind: "cite", start: span[0], end: span[1], field: null });
    return { ...c, page_index: at, span, search_index: at === null ? searchOf(pages, c) : null };
  });
  const cited = new Set(citations.flatMap((c) => (c.page_index === null ? [] : [c.page_index])));
  const fields: FieldResult[] = view.fields.map((f) => {
    // The submitted figure is marked on the cited pages (what the citation check reads).
    if (isValue(f.got))
      for (const i of cited)
        for (const [s, e] of valueRanges(pages[i]!.text, f.got)) add(pages[i]!, { kind: "submitted", start: s, end: e, field: f.field });
    if (f.passed !== false || !isValue(f.expected)) return f;
    const goldAt: number[] = [];
    for (const [i, p] of pages.entries()) {
      const found = valueRanges(p.text, f.expected);
      for (const [s, e] of found) add(p, { kind: "gold", start: s, end: e, field: f.field });
      if (found.length) goldAt.push(i);
    }
    return { ...f, gold_at: goldAt };
  });
  for (const p of pages) p.marks!.sort((a, b) => a.start - b.start || b.end - a.end);
  return { ...view, pages, citations, fields };
}
