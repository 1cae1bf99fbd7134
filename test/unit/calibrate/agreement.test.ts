import assert from "node:assert/strict";
import { test } from "node:test";
import { agreementOf, cohensKappa, wilson } from "../../../src/core/calibrate/agreement";

const close = (a: number | null, b: number, eps = 5e-4) => assert.ok(a !== null && Math.abs(a - b) < eps, `${a} ≉ ${b}`);

test("Wilson interval: published values, never outside [0, 1], not zero-width at 0/n", () => {
  // Newcombe (1998), Table I: 0/10 → [0, 0.2775]; 1/10 → [0.0179, 0.4042]; 81/263 → [0.2553, 0.3662].
  const zero = wilson(0, 10);
  close(zero.low, 0);
  close(zero.high, 0.2775);
  const one = wilson(1, 10);
  close(one.low, 0.0179);
  close(one.high, 0.4042);
  const big = wilson(81, 263);
  close(big.low, 0.2553);
  close(big.high, 0.3662);
  const all = wilson(10, 10);
  close(all.high, 1);
  close(all.low, 0.7225);
  assert.deepEqual(wilson(0, 0), { k: 0, n: 0, rate: null, low: null, high: null });
});

test("Cohen's κ: a textbook table, perfect agreement, chance agreement, one class only", () => {
  // 20 both yes, 5 / 10 off the diagonal, 15 both no: po 0.70, pe 0.50, κ 0.40.
  close(cohensKappa(20, 5, 10, 15), 0.4);
  close(cohensKappa(30, 0, 0, 20), 1);
  close(cohensKappa(25, 25, 25, 25), 0);
  // People and verifier reject everything: agreement is total but tells nothing; κ is undefined.
  assert.equal(cohensKappa(0, 0, 0, 16), null);
});

test("agreementOf: the confusion matrix, the two error rates over their own denominators", () => {
  const pairs = [
    ...Array(6).fill({ human: "accept", verifier: "accept" }),
    ...Array(2).fill({ human: "accept", verifier: "reject" }),
    ...Array(1).fill({ human: "reject", verifier: "accept" }),
    ...Array(11).fill({ human: "reject", verifier: "reject" }),
  ];
  const a = agreementOf(pairs);
  assert.deepEqual([a.n, a.both_accept, a.false_reject, a.false_accept, a.both_reject], [20, 6, 2, 1, 11]);
  // False accepts are counted among the answers people reject, false rejects among those they accept.
  assert.deepEqual([a.false_accept_rate.k, a.false_accept_rate.n], [1, 12]);
  assert.deepEqual([a.false_reject_rate.k, a.false_reject_rate.n], [2, 8]);
  close(a.agreement, 17 / 20);
  close(a.kappa, cohensKappa(6, 1, 2, 11)!);
});
