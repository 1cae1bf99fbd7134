/** One ranked chunk: its index in the chunk list and its BM25 score. */
export interface Hit {
  chunk: number;
  score: number;
}

interface Postings {
  chunks: Int32Array;
  counts: Int32Array;
}

/**
 * An inverted index with Okapi BM25 ranking (k1 1.2, b 0.75). Built once from the chunk
 * term counts; a query touches only the posting lists of its terms, never the text.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Postings>();
  private readonly lengths: Float64Array;
  private readonly avgLength: number;
  readonly size: number;

  constructor(
    chunkTerms: Iterable<{ terms: Map<string, number>; length: number }>,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    const building = new Map<string, number[]>();
    const lengths: number[] = [];
    let n = 0;
    for (const c of chunkTerms) {
      for (const [term, count] of c.terms) {
        const list = building.get(term);
        if (list) list.push(n, count);
        else building.set(term, [n, count]);
      }
      lengths.push(c.length);
      n++;
    }
    for (const [term, list] of building) {
      const chunks = new Int32Array(list.length / 2);
      const counts = new Int32Array(list.length / 2);
      for (let i = 0; i < chunks.length; i++) {
        chunks[i] = list[2 * i]!;
        counts[i] = list[2 * i + 1]!;
      }
      this.postings.set(term, { chunks, counts });
    }
    this.size = n;
    this.lengths = Float64Array.from(lengths);
    this.avgLength = n ? lengths.reduce((s, x) => s + x, 0) / n : 1;
  }

  get vocabulary(): number {
    return this.postings.size;
  }

  /**
   * Add `weight` × this term's BM25 contribution to `scores[unit]` for every unit that holds
   * it; the number of units touched. The ranker combines several such passes.
   */
  accumulate(term: string, weight: number, scores: Float64Array): number {
    const p = this.postings.get(term);
    if (!p) return 0;
    const df = p.chunks.length;
    const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
    for (let i = 0; i < df; i++) {
      const c = p.chunks[i]!;
      const tf = p.counts[i]!;
      const norm = this.k1 * (1 - this.b + (this.b * this.lengths[c]!) / this.avgLength);
      scores[c] = scores[c]! + (weight * idf * tf * (this.k1 + 1)) / (tf + norm);
    }
    return df;
  }

  /** Units that hold `term`, ascending. */
  unitsWith(term: string): Int32Array | undefined {
    return this.postings.get(term)?.chunks;
  }

  /** The `k` best chunks for these terms, best first; chunks matching no term are never returned. */
  search(terms: readonly string[], k: number, accept?: (chunk: number) => boolean): Hit[] {
    const scores = new Map<number, number>();
    for (const term of new Set(terms)) {
      const p = this.postings.get(term);
      if (!p) continue;
      const df = p.chunks.length;
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const c = p.chunks[i]!;
        const tf = p.counts[i]!;
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[c]!) / this.avgLength);
        scores.set(c, (scores.get(c) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    const hits: Hit[] = [];
    for (const [chunk, score] of scores) if (!accept || accept(chunk)) hits.push({ chunk, score });
    hits.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
    return hits.slice(0, k);
  }
}
