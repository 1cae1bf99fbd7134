import type { DocumentPage } from "./types";
import { isStopWord, type Token, tokenize } from "./tokenize";

/** A span of one page: the unit the search index ranks. Never crosses a page boundary. */
export interface Chunk {
  doc: number;
  page: number;
  /** Character span inside the page's text. */
  start: number;
  end: number;
  /** Indexed terms with their counts; emptied once the index is built from them. */
  terms: Map<string, number>;
  length: number;
}

/**
 * Split each page into windows of `size` tokens that overlap by a quarter, so a fact
 * straddling a window edge is still whole in one chunk.
 */
export function chunkPage(doc: number, page: DocumentPage, size: number): Chunk[] {
  const tokens = tokenize(page.text);
  const stride = Math.max(1, Math.floor(size * 0.75));
  const chunks: Chunk[] = [];
  for (let i = 0; i < tokens.length || (i === 0 && page.text.trim()); i += stride) {
    const window = tokens.slice(i, i + size);
    chunks.push(makeChunk(doc, page.number, window, page.text.length));
    if (i + size >= tokens.length) break;
  }
  return chunks;
}

function makeChunk(doc: number, page: number, window: Token[], pageLength: number): Chunk {
  const terms = new Map<string, number>();
  let length = 0;
  for (const t of window) {
    if (isStopWord(t.term)) continue;
    terms.set(t.term, (terms.get(t.term) ?? 0) + 1);
    length++;
  }
  const start = window[0]?.start ?? 0;
  const end = window[window.length - 1]?.end ?? pageLength;
  return { doc, page, start, end, terms, length };
}
