import { passAtK } from "../../runs/pass-at-k";
import { isScoredStatus } from "../../runs/summarize";
import type { Bin, RolloutRow, TaskPass, UtilisationPoint } from "../protocol/dashboard";

/** Equal-width bins over [lo, hi]; the last bin includes hi. */
export function histogram(values: number[], bins: number, lo: number, hi: number): Bin[] {
  const width = (hi - lo) / bins || 1;
  const out: Bin[] = Array.from({ length: bins }, (_, i) => ({ from: lo + i * width, to: lo + (i + 1) * width, count: 0 }));
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    const i = Math.min(bins - 1, Math.max(0, Math.floor((v - lo) / width)));
    out[i]!.count++;
  }
  return out;
}

/** A rollout counts as passed when it completed with reward at or above the threshold. */
export function perTask(rows: RolloutRow[], threshold = 1): TaskPass[] {
  const groups = new Map<string, RolloutRow[]>();
  for (const r of rows) {
    // The run summary's rule: infrastructure failures and rollouts that never finished are no samples.
    if (!isScoredStatus(r.status)) continue;
    const key = r.task ?? "?";
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.entries()]
    .map(([task, rs]) => {
      const n = rs.length;
      const passed = rs.filter((r) => r.reward !== null && r.reward >= threshold - 1e-9).length;
      const rewards = rs.flatMap((r) => (r.reward === null ? [] : [r.reward]));
      const pass_at_k: Record<string, number> = {};
      for (const k of [1, 2, 4, 8, 16, 32]) if (k <= n) pass_at_k[String(k)] = passAtK(n, passed, k);
      return { task, n, passed, mean_reward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null, pass_at_k };
    })
    .sort((a, b) => a.task.localeCompare(b.task));
}

/** Rollouts per status, as sorted pairs (a Map inside: no status name reaches an object's prototype). */
export function statusCounts(rows: RolloutRow[]): Array<[string, number]> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.status, (out.get(r.status) ?? 0) + 1);
  return [...out.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export interface Interval {
  start: number;
  end: number;
}

/**
 * Utilisation over time in `buckets` equal slices of [t0, t1]: the mean number of
 * policy requests in flight and of rollouts running in each slice (time-weighted).
 */
export function utilisationSeries(
  policy: Interval[],
  rollouts: Interval[],
  buckets = 60,
): { points: UtilisationPoint[]; policyBusy: number | null } {
  if (policy.length + rollouts.length === 0) return { points: [], policyBusy: null };
  // Loops, not Math.min(...all): a spread of 125,000 intervals overflows the stack.
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  for (const list of [policy, rollouts])
    for (const iv of list) {
      if (iv.start < t0) t0 = iv.start;
      if (iv.end > t1) t1 = iv.end;
    }
  const span = Math.max(1, t1 - t0);
  const width = span / buckets;
  const load = (ivs: Interval[]) => {
    const acc = new Float64Array(buckets);
    for (const iv of ivs) {
      const a = Math.max(0, (iv.start - t0) / width);
      const b = Math.min(buckets, (iv.end - t0) / width);
      for (let i = Math.floor(a); i < Math.ceil(b) && i < buckets; i++) acc[i]! += Math.min(b, i + 1) - Math.max(a, i);
    }
    return acc;
  };
  const p = load(policy);
  const r = load(rollouts);
  const points = Array.from({ length: buckets }, (_, i) => ({
    t: t0 + (i + 0.5) * width,
    policy_in_flight: p[i]!,
    rollouts_running: r[i]!,
  }));
  return { points, policyBusy: policy.length ? unionLength(policy) / span : null };
}

/** Total length covered by a set of intervals (overlaps counted once). */
export function unionLength(ivs: Interval[]): number {
  const sorted = [...ivs].sort((a, b) => a.start - b.start);
  let total = 0;
  let curStart = Number.NEGATIVE_INFINITY;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const iv of sorted) {
    if (iv.start > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = iv.start;
      curEnd = iv.end;
    } else curEnd = Math.max(curEnd, iv.end);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}
