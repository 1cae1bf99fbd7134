/** What a document's name says about the filing it holds: "BESTBUY_2019_10K.txt", "AMCOR_2023Q2_10Q.pdf". */
export interface FilingId {
  /** Words of the issuer's name, lower case ("johnson", "johnson"). */
  company: string[];
  year?: number;
  quarter?: number;
  /** "10k", "10q", "8k", "earnings", … lower case; undefined when the name shows none. */
  form?: string;
}

const FORMS = /^(10k|10q|8k|20f|40f|6k|s1|def14a|earnings|annual|proxy)$/i;

/** Reads company, year, quarter and form from a file name of the FinanceBench kind (COMPANY_YEAR[Qn]_FORM[...]). */
export function filingOf(name: string): FilingId {
  const stem = name.replace(/^.*\//, "").replace(/\.[^.]+$/, "");
  const parts = stem.split(/[_\s]+/).filter(Boolean);
  const company: string[] = [];
  let year: number | undefined;
  let quarter: number | undefined;
  let form: string | undefined;
  for (const p of parts) {
    const yq = /^((?:19|20)\d{2})(?:Q([1-4]))?$/i.exec(p);
    if (yq && year === undefined) {
      year = Number(yq[1]);
      if (yq[2]) quarter = Number(yq[2]);
    } else if (FORMS.test(p.replace(/-/g, "")) && !form) form = p.replace(/-/g, "").toLowerCase();
    else if (year === undefined && !form && /^[\p{L}\p{N}][\p{L}\p{N}&.-]*$/u.test(p) && /\p{L}/u.test(p)) company.push(p.toLowerCase());
  }
  return { company, ...(year ? { year } : {}), ...(quarter ? { quarter } : {}), ...(form ? { form } : {}) };
}

/** What a question says about the filing it asks of. */
export interface FilingHints {
  /** The question's text with only letters and digits, lower case, for matching glued names ("Best Buy" → "bestbuy"). */
  compact: string;
  words: Set<string>;
  /** Capitalised words of the question: candidate name prefixes ("MGM" for MGMRESORTS). */
  proper: Set<string>;
  years: number[];
  quarter?: number;
  form?: string;
}

export function filingHints(query: string): FilingHints {
  // "PG&E" and "A.T.T" read as one word, as a file name writes them.
  const glued = query.toLowerCase().replace(/(?<=[\p{L}\p{N}])[&.](?=[\p{L}\p{N}])/gu, "");
  const words = new Set(glued.match(/[\p{L}\p{N}]+/gu) ?? []);
  const proper = new Set((query.match(/\b\p{Lu}[\p{L}\p{N}]{2,}/gu) ?? []).map((w) => w.toLowerCase()));
  const years = [...query.matchAll(/(?:^|[^\d])((?:19|20)\d{2})(?!\d)/g)].map((m) => Number(m[1]));
  const q = /\bQ([1-4])\b|\bQ([1-4])\s*(?:FY)?'?\s*\d{2,4}|\d{4}\s*Q([1-4])\b|\b([1-4])(?:st|nd|rd|th)\s+quarter/i.exec(query);
  const quarter = q ? Number(q[1] ?? q[2] ?? q[3] ?? q[4]) : undefined;
  let form: string | undefined;
  if (/\b10-?K\b|annual report/i.test(query)) form = "10k";
  else if (/\b10-?Q\b|quarter|\bQ[1-4]\b|\bH[12]\b/i.test(query)) form = "10q";
  else if (/\b8-?K\b/i.test(query)) form = "8k";
  else if (/earnings (?:release|call|report)/i.test(query)) form = "earnings";
  return {
    compact: query.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ""),
    words,
    proper,
    years,
    ...(quarter ? { quarter } : {}),
    ...(form ? { form } : {}),
  };
}

/**
 * How strongly a question names this filing: 0 when it does not name its company; then
 * 1, plus a half for the year (the latest year the question names), a quarter for an
 * earlier year it names, a quarter for the form and the quarter.
 */
export function filingMatch(f: FilingId, h: FilingHints): number {
  if (f.company.length === 0) return 0;
  const key = f.company.join("").replace(/[^\p{L}\p{N}]/gu, "");
  const named =
    (key.length >= 4 && h.compact.includes(key)) ||
    f.company.some((w) => w.length >= 4 && h.words.has(w)) ||
    [...h.proper].some((w) => key.startsWith(w) && w.length >= 3) ||
    (key.length < 4 && h.words.has(key)) ||
    isAcronym(f.company, h.words);
  if (!named) return 0;
  let score = 1;
  if (f.year !== undefined && h.years.length) {
    const latest = Math.max(...h.years);
    if (f.year === latest) score += 0.5;
    else if (h.years.includes(f.year)) score += 0.25;
  }
  if (f.form && h.form && f.form === h.form) score += 0.25;
  if (f.quarter !== undefined && h.quarter !== undefined && f.quarter === h.quarter) score += 0.25;
  return score;
}

/** A question may name a company of two or more words by its initials: "JnJ" or "J&J" for Johnson & Johnson. */
function isAcronym(company: string[], words: Set<string>): boolean {
  if (company.length < 2) return false;
  const initials = company.map((w) => w[0]).join("");
  return words.has(initials) || words.has(initials.split("").join("n"));
}
