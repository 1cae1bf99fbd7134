/** One ranked chunk: its index in the chunk list and its BM25 score. */
export interface Hit {
  chunk: number;
  score: number;
}

/**
 * A built index as flat arrays: term `i`'s postings are `units[offsets[i]..offsets[i+1])`
 * (ascending) with their `counts`. The persisted corpus index stores it as it is, so
 * restoring one is a map of terms to numbers, not a rebuild.
 */
export interface Bm25Snapshot {
  terms: string[];
  offsets: Int32Array;
  units: Int32Array;
  counts: Int32Array;
  lengths: Float64Array;
  k1: number;
  b: number;
}

type Units = Iterable<{ terms: Map<string, number>; length: number }>;

/**
 * An inverted index with Okapi BM25 ranking (k1 1.2, b 0.75). Built once from the chunk
 * term counts; a query touches only the posting lists of its terms, never the text.
 */
export class Bm25Index {
  private readonly data: Bm25Snapshot;
  /** Term → its position in `data.terms`. */
  private readonly termIds = new Map<string, number>();
  private readonly avgLength: number;
  readonly size: number;

  constructor(source: Units | Bm25Snapshot, k1 = 1.2, b = 0.75) {
    this.data = isSnapshot(source) ? source : flatten(source, k1, b);
    for (const [i, t] of this.data.terms.entries()) this.termIds.set(t, i);
    this.size = this.data.lengths.length;
    this.avgLength = this.size ? this.data.lengths.reduce((s, x) => s + x, 0) / this.size : 1;
  }

  /** The index as flat arrays (see Bm25Snapshot); `new Bm25Index(snapshot)` gives it back. */
  snapshot(): Bm25Snapshot {
    return this.data;
  }

  get vocabulary(): number {
    return this.termIds.size;
  }

  /**
   * Add `weight` × this term's BM25 contribution to `scores[unit]` for every unit that holds
   * it; the number of units touched. The ranker combines several such passes.
   */
  accumulate(term: string, weight: number, scores: Float64Array): number {
    return this.each(term, (unit, score) => {
      scores[unit] = scores[unit]! + weight * score;
    });
  }

  /** Units that hold `term`, ascending. */
  unitsWith(term: string): Int32Array | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    return this.data.units.subarray(this.data.offsets[id]!, this.data.offsets[id + 1]!);
  }

  /** The `k` best chunks for these terms, best first; chunks matching no term are never returned. */
  search(terms: readonly string[], k: number, accept?: (chunk: number) => boolean): Hit[] {
    const scores = new Map<number, number>();
    for (const term of new Set(terms)) this.each(term, (unit, score) => scores.set(unit, (scores.get(unit) ?? 0) + score));
    const hits: Hit[] = [];
    for (const [chunk, score] of scores) if (!accept || accept(chunk)) hits.push({ chunk, score });
    hits.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
    return hits.slice(0, k);
  }

  /** Call `f` with each unit holding `term` and the term's BM25 score there; the number of units. */
  private each(term: string, f: (unit: number, score: number) => void): number {
    const id = this.termIds.get(term);
    if (id === undefined) return 0;
    const { offsets, units, counts, lengths, k1, b } = this.data;
    const lo = offsets[id]!;
    const hi = offsets[id + 1]!;
    const df = hi - lo;
    const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
    for (let i = lo; i < hi; i++) {
      const c = units[i]!;
      const tf = counts[i]!;
      const norm = k1 * (1 - b + (b * lengths[c]!) / this.avgLength);
      f(c, (idf * tf * (k1 + 1)) / (tf + norm));
    }
    return df;
  }
}

function isSnapshot(x: Units | Bm25Snapshot): x is Bm25Snapshot {
  return "offsets" in x && x.offsets instanceof Int32Array;
}

/** Postings per term from per-unit term counts, laid out flat. */
function flatten(source: Units, k1: number, b: number): Bm25Snapshot {
  const building = new Map<string, number[]>();
  const lengths: number[] = [];
  let n = 0;
  for (const c of source) {
    for (const [term, count] of c.terms) {
      const list = building.get(term);
      if (list) list.push(n, count);
      else building.set(term, [n, count]);
    }
    lengths.push(c.length);
    n++;
  }
  const terms = [...building.keys()];
  const offsets = new Int32Array(terms.length + 1);
  let total = 0;
  terms.forEach((t, i) => {
    offsets[i] = total;
    total += building.get(t)!.length / 2;
  });
  offsets[terms.length] = total;
  const units = new Int32Array(total);
  const counts = new Int32Array(total);
  terms.forEach((t, i) => {
    const list = building.get(t)!;
    for (let j = 0; j < list.length / 2; j++) {
      units[offsets[i]! + j] = list[2 * j]!;
      counts[offsets[i]! + j] = list[2 * j + 1]!;
    }
  });
  return { terms, offsets, units, counts, lengths: Float64Array.from(lengths), k1, b };
}
