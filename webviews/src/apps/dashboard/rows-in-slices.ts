import { RolloutRow } from "./protocol";

/** Rows checked before the page is given back (a task over 50 ms is one a person feels). */
const SLICE_MS = 8;

/**
 * The dashboard's rollout rows checked against their schema a slice at a time, giving the page
 * back between slices (a 10,000-row parse in one go was the longest task of opening the dashboard).
 * A row that does not fit is left out and described in `problems`, as the host's other problems are.
 */
export async function parseRowsInSlices(raw: unknown[]): Promise<{ rows: RolloutRow[]; problems: string[] }> {
  const rows: RolloutRow[] = [];
  const problems: string[] = [];
  let i = 0;
  while (i < raw.length) {
    const until = performance.now() + SLICE_MS;
    for (; i < raw.length && performance.now() < until; i++) {
      const r = RolloutRow.safeParse(raw[i]);
      if (r.success) rows.push(r.data);
      else if (problems.length < 20)
        problems.push(`rollout row ${i + 1}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
    }
    if (i < raw.length) await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
  return { rows, problems };
}
