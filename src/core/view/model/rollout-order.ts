import type { RolloutRow } from "../protocol/dashboard";

/** The dashboard table's sortable columns. */
export type RolloutKey = "id" | "task" | "sample" | "status" | "reward" | "turns" | "duration_ms" | "tokens";

/** One collator for every comparison: `localeCompare` with options builds one per call, which dominated a 10,000-row sort. */
const collator = new Intl.Collator(undefined, { numeric: true });

/**
 * The rows' indexes sorted by a column, missing values (null) last in either direction; ties keep
 * the rows' order. Numbers compare as numbers, text in natural order (`s2` before `s10`).
 */
export function sortedOrder(rows: readonly RolloutRow[], key: RolloutKey, desc: boolean): Int32Array {
  const dir = desc ? -1 : 1;
  const order = Array.from(rows.keys());
  order.sort((i, j) => {
    const x = rows[i]![key];
    const y = rows[j]![key];
    if (x === null || x === undefined) return y === null || y === undefined ? i - j : 1;
    if (y === null || y === undefined) return -1;
    const c = typeof x === "number" && typeof y === "number" ? x - y : collator.compare(String(x), String(y));
    return c * dir || i - j;
  });
  return Int32Array.from(order);
}

/** A task that gives the page back between slices: a new filter (or a frame) runs in between. */
export type Yield = () => Promise<void>;

/**
 * The indexes of `order` whose rows pass `test`, in that order, computed in slices of about
 * `budgetMs` with `pause()` between them, so no task of the page runs longer however many rows
 * there are. Resolves with null when `stale()` says a newer filter replaced this one.
 */
export async function filterInSlices(
  order: Int32Array,
  rows: readonly RolloutRow[],
  test: (r: RolloutRow) => boolean,
  opts: { budgetMs: number; pause: Yield; stale: () => boolean; now?: () => number },
): Promise<Int32Array | null> {
  const now = opts.now ?? (() => performance.now());
  const out = new Int32Array(order.length);
  let n = 0;
  let i = 0;
  while (i < order.length) {
    const until = now() + opts.budgetMs;
    // The clock is read every 256 rows: reading it per row would cost as much as the test.
    for (; i < order.length; i++) {
      const k = order[i]!;
      if (test(rows[k]!)) out[n++] = k;
      if ((i & 255) === 255 && now() > until) {
        i++;
        break;
      }
    }
    if (i < order.length) {
      await opts.pause();
      if (opts.stale()) return null;
    }
  }
  return out.slice(0, n);
}
