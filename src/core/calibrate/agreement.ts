import type { Agreement, Rate, Verdict } from "../schema/calibration";

/** z for a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of k successes in n (95 %): unlike the normal approximation it
 * stays inside [0, 1] and is not zero-width at 0/n, which matters here, where the goal for
 * false accepts is 0 and a 0/30 must still say "up to 11 %".
 */
export function wilson(k: number, n: number, z = Z95): Rate {
  if (n === 0) return { k, n, rate: null, low: null, high: null };
  const p = k / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + z2n);
  return { k, n, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Cohen's κ of a 2×2 table (rows people, columns verifier); null when the chance agreement is 1 (one class only). */
export function cohensKappa(bothAccept: number, falseAccept: number, falseReject: number, bothReject: number): number | null {
  const n = bothAccept + falseAccept + falseReject + bothReject;
  if (n === 0) return null;
  const observed = (bothAccept + bothReject) / n;
  const humanAccept = (bothAccept + falseReject) / n;
  const verifierAccept = (bothAccept + falseAccept) / n;
  const chance = humanAccept * verifierAccept + (1 - humanAccept) * (1 - verifierAccept);
  if (chance >= 1) return null;
  return (observed - chance) / (1 - chance);
}

export interface VerdictPair {
  human: Verdict;
  verifier: Verdict;
}

/** The confusion matrix, rates with intervals and κ of a list of (human, verifier) verdicts. */
export function agreementOf(pairs: readonly VerdictPair[]): Agreement {
  let bothAccept = 0;
  let falseAccept = 0;
  let falseReject = 0;
  let bothReject = 0;
  for (const p of pairs) {
    if (p.human === "accept") p.verifier === "accept" ? bothAccept++ : falseReject++;
    else p.verifier === "accept" ? falseAccept++ : bothReject++;
  }
  const n = pairs.length;
  return {
    n,
    both_accept: bothAccept,
    false_accept: falseAccept,
    false_reject: falseReject,
    both_reject: bothReject,
    false_accept_rate: wilson(falseAccept, falseAccept + bothReject),
    false_reject_rate: wilson(falseReject, falseReject + bothAccept),
    agreement: n === 0 ? null : (bothAccept + bothReject) / n,
    kappa: cohensKappa(bothAccept, falseAccept, falseReject, bothReject),
  };
}
