/**
 * Which row summaries a page of a compare view's aligned lines needs, shared by the page
 * (webviews/src/apps/trajectory/compare-panel.ts, which asks for them) and the server (which
 * sends the first page's ahead, with `init`): both must name the same requests, or the
 * replies sent ahead go unused.
 */

/** One aligned line: a row index (or null where that rollout has no step there) per rollout compared. */
export type AlignedLine = ReadonlyArray<number | null>;

/** How many aligned lines one page of the compare list holds: their summaries are fetched a page at a time. */
export const COMPARE_PAGE = 100;

/** The most rows one `rows` request asks for. */
export const ROWS_PER_REQUEST = 500;

/**
 * The `rows` ranges a page of aligned lines needs from rollout `k`: its rows from the page's
 * first to its last (lines keep each rollout's order), in requests of at most ROWS_PER_REQUEST.
 */
export function rowRangesFor(page: readonly AlignedLine[], k: number): Array<{ from: number; to: number }> {
  const rows = page.map((l) => l[k]).filter((r): r is number => r !== null && r !== undefined);
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (first === undefined || last === undefined) return [];
  const out: Array<{ from: number; to: number }> = [];
  for (let lo = first; lo <= last; lo += ROWS_PER_REQUEST) out.push({ from: lo, to: Math.min(last + 1, lo + ROWS_PER_REQUEST) });
  return out;
}
