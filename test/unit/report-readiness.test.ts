import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { compareRuns } from "../../src/core/report/compare";
import { passHatK, seededRandom, signTest } from "../../src/core/report/estimators";
import { readReportRollouts } from "../../src/core/report/read-rollouts";
import type { ReportRollout } from "../../src/core/report/report-rollout";
import { buildReadiness } from "../../src/core/report/readiness";
import { reportForRun, tasksInBand } from "../../src/core/report/run-report";
import { type SyntheticRollout, writeSyntheticRun } from "../support/synthetic-run";

const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

/** pass^k by brute force: the share of k-subsets whose samples are all correct. */
function bruteHat(n: number, c: number, k: number): number {
  let all = 0;
  let hit = 0;
  const pick = (start: number, left: number, ok: boolean) => {
    if (left === 0) {
      all++;
      if (ok) hit++;
      return;
    }
    for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, ok && i < c);
  };
  pick(0, k, true);
  return hit / all;
}

test("pass^k equals the combinatorial definition", () => {
  for (const [n, c, k] of [
    [4, 2, 2],
    [5, 3, 2],
    [8, 5, 4],
    [6, 0, 1],
    [6, 6, 6],
  ] as const)
    close(passHatK(n, c, k), bruteHat(n, c, k), `n=${n} c=${c} k=${k}`);
  assert.throws(() => passHatK(2, 1, 3), /needs at least 3/);
});

test("sign test: exact binomial tails, by hand", () => {
  // 8 better, 2 worse of 10: P(X ≤ 2) = (1 + 10 + 45) / 1024, doubled.
  close(signTest(8, 2), 112 / 1024, "8:2");
  close(signTest(5, 5), 1, "5:5");
  close(signTest(6, 0), 2 / 64, "6:0");
  assert.equal(signTest(0, 0), 1);
});

/** Five tasks of four samples, one infra error, answers worked out by hand below. */
const t = (w: number, s: number) => [
  { name: "tests", weight: 0.8, score: w },
  { name: "style", weight: 0.2, score: s },
];
const KNOWN: SyntheticRollout[] = [
  ...[0, 1, 2, 3].map((i) => ({ task: "a-always", sample: i, reward: 1, components: t(1, 1) })),
  { task: "b-half", sample: 0, reward: 1, components: t(1, 1) },
  { task: "b-half", sample: 1, reward: 0, components: t(0, 0), reason: "tests failed" },
  { task: "b-half", sample: 2, reward: 0, components: t(0, 0) },
  { task: "b-half", sample: 3, reward: 1, components: t(1, 1) },
  ...[0, 1, 2, 3].map((i) => ({ task: "c-timeout", sample: i, status: "timeout" as const, reward: null, reason: "rollout timeout" })),
  ...[0, 1, 2, 3].map((i) => ({ task: "d-flat", sample: i, reward: 0.5, components: t(0.5, 0.5) })),
  { task: "e-partial", sample: 0, reward: 0.2, components: t(0, 1), status: "truncated" as const },
  { task: "e-partial", sample: 1, reward: 0.6, components: t(0.5, 1), truncatedObservations: 2 },
  { task: "e-partial", sample: 2, reward: 0.8, components: t(1, 0) },
  { task: "e-partial", sample: 3, reward: 0, components: t(0, 0) },
  { task: "e-partial", sample: 4, reward: null, infra: true },
];

test("readiness of a synthetic run: pass@k, pass^k, zero variance, bands and deciding components as worked out by hand", () => {
  const dir = writeSyntheticRun(mkdtempSync(path.join(tmpdir(), "rlenv-report-")), "known", KNOWN, 4);
  const r = reportForRun(dir);
  assert.deepEqual(r.rollouts, { total: 21, scored: 20, infra_errors: 1, unscored: 0 });
  const byTask = new Map(r.tasks.map((x) => [x.task, x]));
  // b-half: n = 4, c = 2. pass@2 = 1 − C(2,2)/C(4,2) = 5/6; pass^2 = C(2,2)/C(4,2) = 1/6; pass^3 = 0.
  const b = byTask.get("b-half")!;
  close(b.pass_at_k["1"], 0.5, "b pass@1");
  close(b.pass_at_k["2"], 5 / 6, "b pass@2");
  close(b.pass_at_k["3"], 1, "b pass@3");
  close(b.pass_hat_k["2"], 1 / 6, "b pass^2");
  close(b.pass_hat_k["3"], 0, "b pass^3");
  // The infra error is not a sample of e-partial: four scored, not five.
  assert.equal(byTask.get("e-partial")!.n, 4);
  assert.equal(byTask.get("e-partial")!.infra_errors, 1);
  // Overall: mean over five tasks. pass@1 = (1 + 1/2 + 0 + 0 + 0)/5; pass@2 = (1 + 5/6)/5; pass^2 = (1 + 1/6)/5.
  assert.deepEqual(r.ks, [1, 2, 3, 4]);
  close(r.pass_at_k["1"], 0.3, "pass@1");
  close(r.pass_at_k["2"], 11 / 30, "pass@2");
  close(r.pass_hat_k["2"], 7 / 30, "pass^2");
  close(r.pass_at_k["4"], 2 / 5, "pass@4");
  close(r.pass_hat_k["4"], 1 / 5, "pass^4");
  // a-always (all 1), c-timeout (all 0), d-flat (all 0.5) give no advantage: 3 of 5 groups, 12 of 20 rollouts.
  assert.deepEqual(
    r.tasks.filter((x) => x.zero_variance).map((x) => x.task),
    ["a-always", "c-timeout", "d-flat"],
  );
  assert.deepEqual(r.zero_variance, { groups: 5, zero: 3, fraction: 0.6, rollouts: 12, rollouts_fraction: 0.6 });
  assert.deepEqual(r.bands, { always: 1, learnable: 1, never: 3 });
  assert.deepEqual(tasksInBand(r, "learnable"), ["b-half"]);
  // Rewards: 4 + 2 ones, 4 + 1 + 1 zeros (c's timeouts score 0), four 0.5, and 0.2, 0.6, 0.8.
  close(r.reward.mean, (6 + 2 + 0.2 + 0.6 + 0.8) / 20, "mean reward");
  assert.deepEqual(r.reward.histogram, [7, 0, 1, 0, 0, 4, 1, 0, 1, 6]);
  // Ten rollouts short of full marks carry components; "tests" lost the most in nine, "style" in one (e-partial's 0.8).
  const comp = new Map(r.components.map((c) => [c.name, c]));
  assert.equal(comp.get("tests")!.decides, 9);
  assert.equal(comp.get("style")!.decides, 1);
  close(comp.get("tests")!.decides_fraction, 0.9, "tests decides");
  // Failures carry the statuses and reasons; the timeouts are c-timeout's four.
  assert.equal(r.failures.find((f) => f.reason.startsWith("timeout"))?.count, 4);
  assert.equal(r.truncation.rollouts, 1);
  close(r.truncation.rate, 1 / 20, "truncation rate");
  assert.equal(r.truncation.observations_truncated, 2);
  // Each rollout: 10 ms, 4 policy, 3 sandbox, 1 verify, 2 elsewhere (21 rollouts with an end).
  assert.deepEqual(r.time, { total_ms: 210, policy_ms: 84, sandbox_ms: 63, verify_ms: 21, queue_ms: 42 });
});

/** A run of a policy whose chance of solving task i is p(i), k samples each, from a seeded generator. */
function simulatedRun(p: (task: number) => number, seed: number, tasks = 40, k = 8): ReportRollout[] {
  const rand = seededRandom(seed);
  const out: ReportRollout[] = [];
  for (let i = 0; i < tasks; i++)
    for (let s = 0; s < k; s++)
      out.push({
        task: `t${String(i).padStart(2, "0")}`,
        sample: s,
        status: "completed",
        infra: false,
        reward: rand() < p(i) ? 1 : 0,
        components: [],
        turns: 1,
        usage: null,
        timings: null,
        observations: 0,
        observationsTruncated: 0,
      });
  return out;
}
const meta = (id: string) => ({ runId: id, dir: id, env: { name: "e", hash: "h" }, policy: "p" });
const skill = (i: number) => ((i * 37) % 40) / 40;

test("comparison: two runs of one policy are not flagged (at most ~5% of pairs), a planted +0.15 is (nearly always)", () => {
  let falseAlarms = 0;
  let caught = 0;
  const pairs = 100;
  for (let s = 0; s < pairs; s++) {
    const a = buildReadiness(simulatedRun(skill, 1000 + s), meta("a"));
    const same = buildReadiness(simulatedRun(skill, 5000 + s), meta("b"));
    const better = buildReadiness(
      simulatedRun((i) => Math.min(1, skill(i) + 0.15), 9000 + s),
      meta("c"),
    );
    if (compareRuns(a, same, { resamples: 1000 }).significant) falseAlarms++;
    if (compareRuns(a, better, { resamples: 1000 }).significant) caught++;
  }
  assert.ok(falseAlarms <= 10, `${falseAlarms} of ${pairs} same-policy pairs flagged`);
  assert.ok(caught >= 90, `only ${caught} of ${pairs} planted differences flagged`);
});

test("comparison of two run folders: deltas, band changes, tasks only in one run", () => {
  const parent = mkdtempSync(path.join(tmpdir(), "rlenv-compare-"));
  const rolls = (task: string, rewards: number[]): SyntheticRollout[] => rewards.map((reward, sample) => ({ task, sample, reward }));
  const a = writeSyntheticRun(parent, "a", [...rolls("x", [0, 0]), ...rolls("y", [1, 0]), ...rolls("only-a", [1, 1])], 2);
  const b = writeSyntheticRun(parent, "b", [...rolls("x", [1, 0]), ...rolls("y", [1, 0]), ...rolls("only-b", [0, 0])], 2);
  const c = compareRuns(reportForRun(a), reportForRun(b));
  assert.deepEqual(
    c.tasks.map((x) => [x.task, x.delta, x.a_band, x.b_band]),
    [
      ["x", 0.5, "never", "learnable"],
      ["y", 0, "learnable", "learnable"],
    ],
  );
  assert.deepEqual([c.only_a, c.only_b], [["only-a"], ["only-b"]]);
  assert.deepEqual(c.sign_test, { better: 1, worse: 0, ties: 1, p: 1 });
  assert.equal(readReportRollouts(a).length, 6);
});
