import { Bm25Index, type Bm25Snapshot } from "../bm25";
import { isStopWord, tokenize } from "../tokenize";
import type { ParsedDocument } from "../types";
import { type FilingId, filingMatch, filingOf } from "./filing";
import { type AnalyzedQuery, analyzeQuery } from "./query";
import { type TableRow, tableRows } from "./rows";
import { tagStatements } from "./statements";
import { FINANCE_VOCABULARY, type StatementKind, type Vocabulary, normalizePhrase } from "./vocabulary";

/** One ranked page. */
export interface PageHit {
  /** Index of the document in the corpus. */
  doc: number;
  /** 1-based page number. */
  page: number;
  score: number;
  /** The table row that matched best, when one did: where the snippet should point. */
  row?: TableRow;
  /** The financial statements this page prints. */
  statements: StatementKind[];
}

// Weights of the signals, each on a 0–1 scale after normalising by the best page. Why
// these: BM25 over whole pages finds the topic, the best single table row finds the line
// item (a statement page prints it once, a note page discusses it at length), and the
// bonuses break the ties among the pages that BM25 already likes.
const EXPANSION_WEIGHT = 0.35;
const ROW_EXPANSION_WEIGHT = 0.6;
const ROW_WEIGHT = 0.8;
const PHRASE_BONUS = 0.2;
const PHRASE_BONUS_MAX = 0.6;
const SYNONYM_BONUS = 0.25;
const STATEMENT_BONUS = 0.5;
const NUMBER_BONUS = 0.1;
const NUMBER_BONUS_MAX = 0.3;
/** Larger than every other signal together: the filing the question names comes first. */
const FILING_WEIGHT = 10;
/** Pages re-scored with the phrase and statement checks after the first pass. */
const CANDIDATES = 120;

/**
 * Finance-aware page ranking over a corpus: the filing a question names ranks its own pages
 * first; BM25 over pages and over table rows (label and figures) with the query's terms and
 * the synonyms of the finance concepts it names (finance-terms.json); bonuses for the
 * query's phrases, for a financial statement page of the kind the query asks about, and
 * for the years and figures the query writes.
 */
export class PageRanker {
  private readonly pageDoc: Int32Array;
  private readonly pageNumber: Int32Array;
  /** Each page's text as printed, and through normalizePhrase once a query first looks at the page. */
  private readonly rawText: string[];
  private readonly normalized: Array<string | undefined>;
  private readonly tags: StatementKind[][];
  private readonly pageIndex: Bm25Index;
  private readonly rowIndex: Bm25Index;
  private readonly rows: TableRow[];
  private readonly rowPage: Int32Array;
  private readonly rowLabel: string[];
  private readonly filings: FilingId[];
  private readonly docStart: Int32Array;

  /**
   * Index `documents`; with `snapshot` (what `snapshot()` gave for the same documents and
   * vocabulary, from the persisted corpus index) take the built arrays instead of rebuilding.
   */
  constructor(
    documents: readonly ParsedDocument[],
    private readonly vocab: Vocabulary = FINANCE_VOCABULARY,
    snapshot?: RankerSnapshot,
  ) {
    const s = snapshot ?? buildRankerData(documents, vocab);
    this.pageDoc = s.pageDoc;
    this.pageNumber = s.pageNumber;
    this.rawText = documents.flatMap((d) => d.pages.map((p) => p.text));
    this.normalized = new Array(this.rawText.length);
    this.tags = s.tags;
    this.pageIndex = new Bm25Index(s.pageIndex);
    this.rowIndex = new Bm25Index(s.rowIndex);
    this.rows = s.rowLabels.map((label, i) => ({ label, start: s.rowStart[i]!, end: s.rowEnd[i]! }));
    this.rowPage = s.rowPage;
    this.rowLabel = s.rowLabel;
    this.docStart = s.docStart;
    this.filings = documents.map((d) => filingOf(d.name));
  }

  /** The built arrays, for the persisted corpus index. */
  snapshot(): RankerSnapshot {
    return {
      pageDoc: this.pageDoc,
      pageNumber: this.pageNumber,
      tags: this.tags,
      pageIndex: this.pageIndex.snapshot(),
      rowIndex: this.rowIndex.snapshot(),
      rowLabels: this.rows.map((r) => r.label),
      rowStart: Int32Array.from(this.rows, (r) => r.start),
      rowEnd: Int32Array.from(this.rows, (r) => r.end),
      rowPage: this.rowPage,
      rowLabel: this.rowLabel,
      docStart: this.docStart,
    };
  }

  get pageCount(): number {
    return this.pageDoc.length;
  }

  /** Statements the page prints (document index, 1-based page). */
  statementsOf(doc: number, page: number): StatementKind[] {
    const start = this.docStart[doc] ?? 0;
    const end = this.docStart[doc + 1] ?? start;
    for (let i = start; i < end; i++) if (this.pageNumber[i] === page) return this.tags[i] ?? [];
    return [];
  }

  /** The `k` best pages for `query`, best first; only document `onlyDoc` when given. */
  search(query: string, k: number, onlyDoc?: number): PageHit[] {
    const q = analyzeQuery(query, this.vocab);
    const n = this.pageDoc.length;
    const lo = onlyDoc === undefined ? 0 : (this.docStart[onlyDoc] ?? 0);
    const hi = onlyDoc === undefined ? n : (this.docStart[onlyDoc + 1] ?? lo);
    const ps = new Float64Array(n);
    for (const t of q.terms) this.pageIndex.accumulate(t, 1, ps);
    for (const t of q.expansion) this.pageIndex.accumulate(t, EXPANSION_WEIGHT, ps);
    const rs = new Float64Array(this.rows.length);
    for (const t of q.terms) this.rowIndex.accumulate(t, 1, rs);
    for (const t of q.expansion) this.rowIndex.accumulate(t, ROW_EXPANSION_WEIGHT, rs);
    const rowBest = new Float64Array(n);
    const bestRow = new Int32Array(n).fill(-1);
    for (let r = 0; r < rs.length; r++) {
      const s = rs[r]!;
      if (s <= 0) continue;
      const p = this.rowPage[r]!;
      if (s > rowBest[p]!) {
        rowBest[p] = s;
        bestRow[p] = r;
      }
    }
    let pMax = 0;
    let rMax = 0;
    for (let p = lo; p < hi; p++) {
      if (ps[p]! > pMax) pMax = ps[p]!;
      if (rowBest[p]! > rMax) rMax = rowBest[p]!;
    }
    const base = new Float64Array(n);
    for (let p = lo; p < hi; p++) base[p] = (pMax ? ps[p]! / pMax : 0) + (rMax ? (ROW_WEIGHT * rowBest[p]!) / rMax : 0);
    const named = onlyDoc === undefined ? this.filings.map((f) => filingMatch(f, q.filing)) : [];
    const candidates = new Set(topPages(base, lo, hi, CANDIDATES, () => true));
    if (named.some((x) => x > 0))
      for (const p of topPages(base, lo, hi, CANDIDATES, (p) => (named[this.pageDoc[p]!] ?? 0) > 0)) candidates.add(p);
    const numberPages = q.numbers.map((t) => this.pageIndex.unitsWith(t));
    const hits: PageHit[] = [];
    for (const p of candidates) {
      const doc = this.pageDoc[p]!;
      const score = base[p]! + this.bonus(p, bestRow[p]!, q, numberPages) + FILING_WEIGHT * (named[doc] ?? 0);
      const r = bestRow[p]!;
      hits.push({ doc, page: this.pageNumber[p]!, score, statements: this.tags[p] ?? [], ...(r >= 0 ? { row: this.rows[r] } : {}) });
    }
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc || a.page - b.page);
    return hits.slice(0, k);
  }

  private normalizedPage(p: number): string {
    let text = this.normalized[p];
    if (text === undefined) {
      text = normalizePhrase(this.rawText[p] ?? "");
      this.normalized[p] = text;
    }
    return text;
  }

  private bonus(p: number, row: number, q: AnalyzedQuery, numberPages: Array<Int32Array | undefined>): number {
    const text = this.normalizedPage(p);
    let phrase = 0;
    for (const ph of q.phrases) if (text.includes(ph)) phrase += PHRASE_BONUS;
    let b = Math.min(PHRASE_BONUS_MAX, phrase);
    const label = row >= 0 ? (this.rowLabel[row] ?? "") : "";
    if (label && q.synonyms.some((s) => label.includes(s))) b += SYNONYM_BONUS;
    if ((this.tags[p] ?? []).some((t) => q.statements.has(t))) b += STATEMENT_BONUS;
    let nums = 0;
    for (const units of numberPages) if (units && binaryHas(units, p)) nums += NUMBER_BONUS;
    return b + Math.min(NUMBER_BONUS_MAX, nums);
  }
}

/** What the ranker builds from the documents: pages, statement tags, rows and both BM25 indexes. */
export interface RankerSnapshot {
  pageDoc: Int32Array;
  pageNumber: Int32Array;
  tags: StatementKind[][];
  pageIndex: Bm25Snapshot;
  rowIndex: Bm25Snapshot;
  rowLabels: string[];
  rowStart: Int32Array;
  rowEnd: Int32Array;
  rowPage: Int32Array;
  /** Each row's label through normalizePhrase. */
  rowLabel: string[];
  docStart: Int32Array;
}

function buildRankerData(documents: readonly ParsedDocument[], vocab: Vocabulary): RankerSnapshot {
  const pageDoc: number[] = [];
  const pageNumber: number[] = [];
  const tags: StatementKind[][] = [];
  const rows: TableRow[] = [];
  const rowPage: number[] = [];
  const rowLabel: string[] = [];
  const pageUnits: Array<{ terms: Map<string, number>; length: number }> = [];
  const rowUnits: Array<{ terms: Map<string, number>; length: number }> = [];
  const docStart = new Int32Array(documents.length + 1);
  documents.forEach((d, di) => {
    docStart[di] = pageDoc.length;
    for (const p of d.pages) {
      const pi = pageDoc.length;
      pageDoc.push(di);
      pageNumber.push(p.number);
      const normalized = normalizePhrase(p.text);
      tags.push(tagStatements(p.text, vocab, normalized));
      pageUnits.push(termCounts(p.text));
      for (const r of tableRows(p.text)) {
        rows.push(r);
        rowPage.push(pi);
        rowLabel.push(normalizePhrase(r.label));
        rowUnits.push(termCounts(p.text.slice(r.start, r.end)));
      }
    }
  });
  docStart[documents.length] = pageDoc.length;
  return {
    pageDoc: Int32Array.from(pageDoc),
    pageNumber: Int32Array.from(pageNumber),
    tags,
    pageIndex: new Bm25Index(pageUnits).snapshot(),
    rowIndex: new Bm25Index(rowUnits, 1.2, 0.5).snapshot(),
    rowLabels: rows.map((r) => r.label),
    rowStart: Int32Array.from(rows, (r) => r.start),
    rowEnd: Int32Array.from(rows, (r) => r.end),
    rowPage: Int32Array.from(rowPage),
    rowLabel,
    docStart,
  };
}

function termCounts(text: string): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  let length = 0;
  for (const t of tokenize(text)) {
    if (isStopWord(t.term)) continue;
    terms.set(t.term, (terms.get(t.term) ?? 0) + 1);
    length++;
  }
  return { terms, length };
}

/** The `k` pages in [lo, hi) with the highest positive scores that pass `keep`. */
function topPages(scores: Float64Array, lo: number, hi: number, k: number, keep: (p: number) => boolean): number[] {
  const out: number[] = [];
  for (let p = lo; p < hi; p++) if (scores[p]! > 0 && keep(p)) out.push(p);
  out.sort((a, b) => scores[b]! - scores[a]!);
  return out.slice(0, k);
}

function binaryHas(sorted: Int32Array, x: number): boolean {
  let a = 0;
  let b = sorted.length - 1;
  while (a <= b) {
    const m = (a + b) >> 1;
    const v = sorted[m]!;
    if (v === x) return true;
    if (v < x) a = m + 1;
    else b = m - 1;
  }
  return false;
}

export { analyzeQuery };
