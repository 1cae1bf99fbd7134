import { passAtK } from "../runs/pass-at-k";

export { passAtK };

/**
 * The unbiased pass^k estimator (τ-bench): the chance that k samples drawn without
 * replacement from n, c of them correct, are all correct: C(c, k) / C(n, k), as a product.
 */
export function passHatK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass^${k} needs at least ${k} samples, have ${n}`);
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return Math.max(0, all);
}

export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** The sample standard deviation (n − 1); 0 for fewer than two values. */
export function std(xs: readonly number[]): number {
  const m = mean(xs);
  if (m === null || xs.length < 2) return 0;
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

/** The value below which a share `q` of the sorted values lie (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Rewards this close count as equal: a group whose samples all score within it gives GRPO no advantage. */
export const EQUAL_REWARD = 1e-9;

export function allEqual(xs: readonly number[]): boolean {
  return xs.length > 0 && Math.max(...xs) - Math.min(...xs) <= EQUAL_REWARD;
}

/**
 * Two-sided exact sign test: the chance, under "each nonzero difference is as likely
 * positive as negative", of a split at least as lopsided as `positive` : `negative`.
 */
export function signTest(positive: number, negative: number): number {
  const n = positive + negative;
  if (n === 0) return 1;
  const low = Math.min(positive, negative);
  // log C(n, i) − n log 2 summed over the tail, kept in logs so large n do not overflow.
  let logC = 0;
  let tail = 0;
  for (let i = 0; i <= low; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

/** A small seeded generator (mulberry32): the same run folders give the same interval every time. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap interval of the mean of `xs` (resampled with replacement, seeded). */
export function bootstrapMeanInterval(
  xs: readonly number[],
  opts: { resamples?: number; confidence?: number; seed?: number } = {},
): { lo: number; hi: number; resamples: number; confidence: number } | null {
  if (xs.length === 0) return null;
  const resamples = opts.resamples ?? 4000;
  const confidence = opts.confidence ?? 0.95;
  const rand = seededRandom(opts.seed ?? 1);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(rand() * xs.length)]!;
    means.push(s / xs.length);
  }
  means.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return { lo: quantile(means, tail)!, hi: quantile(means, 1 - tail)!, resamples, confidence };
}
