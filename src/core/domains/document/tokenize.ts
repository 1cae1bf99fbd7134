/** A word of a page with where it is, so a chunk and a snippet can point back into the text. */
export interface Token {
  term: string;
  start: number;
  end: number;
}

// Words, and numbers with their thousands separators and decimals ("16,388", "2.5").
const WORD = /[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*/gu;

const STOP = new Set("a an and are as at be by for from has have in is it its of on or that the this to was were will with".split(" "));

/** Search terms of a word: lower case; numbers without separators ("16,388" → "16388"). */
export function termOf(word: string): string {
  const w = word.toLowerCase();
  return /^\d[\d,]*(\.\d+)?$/.test(w) ? w.replace(/,/g, "") : w.replace(/['’]s$/, "");
}

/** Every word of `text` (stop words included, so chunk sizes count real tokens). */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) out.push({ term: termOf(m[0]), start: m.index, end: m.index + m[0].length });
  return out;
}

/** Terms of a query, stop words dropped (unless nothing else is left). */
export function queryTerms(query: string): string[] {
  const all = tokenize(query).map((t) => t.term);
  const kept = all.filter((t) => !STOP.has(t));
  return [...new Set(kept.length ? kept : all)];
}

export function isStopWord(term: string): boolean {
  return STOP.has(term);
}
