import { rolloutTest } from "../model/rollout-filter";
import { type RolloutKey, sortedOrder } from "../model/rollout-order";
import type { RolloutPage, RolloutRow, RolloutWhere } from "../protocol/dashboard";

/** Filters remembered per table: a scroll asks again with the same one, a typed filter changes it. */
const REMEMBERED = 8;

/**
 * A run's rollout rows on the server's side of the dashboard, answering the table's pages: each
 * sort order is computed once per build, and each filter's rows once, so scrolling costs a slice.
 * The page never holds the run's rows (10,000 of them were a 5.5 MB reply the page took half a
 * second to parse), yet sorting and filtering cover every rollout.
 */
export class RolloutTable {
  private readonly orders = new Map<string, Int32Array>();
  /** Recent (sort, filter) → indexes of the rows kept, in order; the newest last. */
  private readonly kept = new Map<string, Int32Array>();

  constructor(
    readonly rows: readonly RolloutRow[],
    readonly version: number,
  ) {}

  /** Rows [from, from + count) of those `where` keeps, sorted by `sort`. */
  page(q: { sort: RolloutKey; desc: boolean; where: RolloutWhere; from: number; count: number }): RolloutPage {
    const shown = this.shown(q.sort, q.desc, q.where);
    const rows: RolloutRow[] = [];
    // Without their metadata: the server filters on it, the page shows none of it.
    for (let i = q.from; i < Math.min(shown.length, q.from + q.count); i++) rows.push({ ...this.rows[shown[i]!]!, meta: [] });
    return { total: this.rows.length, matched: shown.length, from: q.from, rows, version: this.version };
  }

  /** The files of the rows `where` keeps (what a search limited to the table's filter reads). */
  files(where: RolloutWhere): string[] {
    return Array.from(this.shown("id", false, where), (k) => this.rows[k]!.file);
  }

  private shown(sort: RolloutKey, desc: boolean, where: RolloutWhere): Int32Array {
    const key = JSON.stringify([sort, desc, where]);
    let shown = this.kept.get(key);
    if (shown) {
      this.kept.delete(key);
      this.kept.set(key, shown);
      return shown;
    }
    const order = this.order(sort, desc);
    const test = rolloutTest(where);
    const out = new Int32Array(order.length);
    let n = 0;
    for (const k of order) if (test(this.rows[k]!)) out[n++] = k;
    shown = out.slice(0, n);
    this.kept.set(key, shown);
    if (this.kept.size > REMEMBERED) this.kept.delete(this.kept.keys().next().value!);
    return shown;
  }

  private order(sort: RolloutKey, desc: boolean): Int32Array {
    const key = `${sort}:${desc}`;
    let order = this.orders.get(key);
    if (!order) {
      order = sortedOrder(this.rows, sort, desc);
      this.orders.set(key, order);
    }
    return order;
  }
}
