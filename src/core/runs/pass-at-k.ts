/**
 * The unbiased pass@k estimator (Chen et al., 2021): the chance that at least one of k
 * samples drawn without replacement from n, c of them correct, is correct:
 * 1 - C(n-c, k) / C(n, k), computed as a product to stay exact for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} samples, have ${n}`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** The k values worth reporting for n samples: 1, 2, 4, … up to n, and n itself. */
export function reportedKs(n: number, extra: number[] = []): number[] {
  const ks = new Set<number>();
  for (let k = 1; k <= n; k *= 2) ks.add(k);
  if (n >= 1) ks.add(n);
  for (const k of extra) if (k >= 1 && k <= n) ks.add(k);
  return [...ks].sort((a, b) => a - b);
}
