import type { ReadinessReport, RunComparison } from "../schema/report";
import { bootstrapMeanInterval, EQUAL_REWARD, mean, signTest } from "./estimators";

/**
 * Run `b` against run `a` task by task: each shared task's mean reward moves by `delta`;
 * whether the mean of those moves is more than noise is told by a percentile bootstrap over
 * tasks (the interval leaving out 0) and, beside it, an exact sign test over the tasks that moved.
 */
export function compareRuns(a: ReadinessReport, b: ReadinessReport, opts: { seed?: number; resamples?: number } = {}): RunComparison {
  const bTasks = new Map(b.tasks.map((t) => [t.task, t]));
  const aIds = new Set(a.tasks.map((t) => t.task));
  const tasks: RunComparison["tasks"] = [];
  for (const ta of a.tasks) {
    const tb = bTasks.get(ta.task);
    if (!tb || ta.n === 0 || tb.n === 0) continue;
    const delta = ta.mean_reward !== null && tb.mean_reward !== null ? tb.mean_reward - ta.mean_reward : null;
    tasks.push({ task: ta.task, a_mean: ta.mean_reward, b_mean: tb.mean_reward, delta, a_band: ta.band, b_band: tb.band });
  }
  const deltas = tasks.flatMap((t) => (t.delta === null ? [] : [t.delta]));
  const better = deltas.filter((d) => d > EQUAL_REWARD).length;
  const worse = deltas.filter((d) => d < -EQUAL_REWARD).length;
  const bootstrap = bootstrapMeanInterval(deltas, { seed: opts.seed ?? 1, ...(opts.resamples ? { resamples: opts.resamples } : {}) });
  const significant = bootstrap !== null && (bootstrap.lo > 0 || bootstrap.hi < 0) && better + worse > 0;
  const meanDelta = mean(deltas);
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
  const ra = a.env.reward_hash;
  const rb = b.env.reward_hash;
  const rewardChanged = ra && rb && ra !== rb ? { a: ra, b: rb } : undefined;
  const caveat = rewardChanged ? `reward definition changed (${ra} → ${rb}): the difference may be the reward's, not the policy's; ` : "";
  const judged =
    meanDelta === null || bootstrap === null
      ? "no shared tasks with scored samples: nothing to compare"
      : significant
        ? `${b.run_id} is ${meanDelta > 0 ? "better" : "worse"} than ${a.run_id} by ${pct(meanDelta)} mean reward per task ` +
          `(${Math.round(bootstrap.confidence * 100)}% interval ${pct(bootstrap.lo)} … ${pct(bootstrap.hi)}): more than noise`
        : `the difference ${pct(meanDelta)} (${Math.round(bootstrap.confidence * 100)}% interval ${pct(bootstrap.lo)} … ${pct(bootstrap.hi)}) ` +
          "is within noise";
  const verdict = caveat + judged;
  return {
    a: a.run_id,
    b: b.run_id,
    tasks,
    only_a: a.tasks.filter((t) => !bTasks.has(t.task)).map((t) => t.task),
    only_b: b.tasks.filter((t) => !aIds.has(t.task)).map((t) => t.task),
    mean_delta: meanDelta,
    sign_test: { better, worse, ties: deltas.length - better - worse, p: signTest(better, worse) },
    bootstrap,
    significant,
    ...(rewardChanged ? { reward_changed: rewardChanged } : {}),
    verdict,
  };
}

/** The shared tasks whose difficulty band changed between the two runs. */
export function bandChanges(c: RunComparison): RunComparison["tasks"] {
  return c.tasks.filter((t) => t.a_band !== t.b_band);
}
