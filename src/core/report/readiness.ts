import { rewardBreakdown } from "../runs/breakdown";
import { PASS_REWARD } from "../runs/summarize";
import type { Band, ConcurrencyDecision, ReadinessReport, TaskReadiness } from "../schema/report";
import { allEqual, mean, passAtK, passHatK, quantile, std } from "./estimators";
import type { ReportRollout } from "./report-rollout";

export interface ReadinessMeta {
  runId: string;
  dir: string;
  env: { name: string; hash: string; reward_hash?: string };
  policy: string;
  utilisation?: ReadinessReport["utilisation"] | undefined;
  concurrency?: ConcurrencyDecision[] | undefined;
}

/** Stopped from outside or killed mid-way: they say nothing about the agent. */
const UNSCORED = new Set(["cancelled", "interrupted"]);

export const scoredRollout = (r: ReportRollout): boolean => !r.infra && !UNSCORED.has(r.status);

/** A rollout without a reward (an error, a timeout before verifying) scores 0, as in summary.json. */
const rewardOf = (r: ReportRollout): number => r.reward ?? 0;
const passed = (r: ReportRollout): boolean => rewardOf(r) >= PASS_REWARD;

export function bandOf(n: number, c: number): Band {
  return c === 0 ? "never" : c === n ? "always" : "learnable";
}

function spread(xs: number[]): { mean: number | null; p50: number | null; max: number | null } {
  const sorted = [...xs].sort((a, b) => a - b);
  return { mean: mean(xs), p50: quantile(sorted, 0.5), max: sorted.length ? sorted[sorted.length - 1]! : null };
}

function taskRow(task: string, all: ReportRollout[]): TaskReadiness {
  const rs = all.filter(scoredRollout);
  const rewards = rs.map(rewardOf);
  const n = rs.length;
  const c = rs.filter(passed).length;
  const pk: Record<string, number> = {};
  const phk: Record<string, number> = {};
  for (let k = 1; k <= n; k++) {
    pk[String(k)] = passAtK(n, c, k);
    phk[String(k)] = passHatK(n, c, k);
  }
  return {
    task,
    n,
    passed: c,
    mean_reward: mean(rewards),
    std_reward: std(rewards),
    zero_variance: n >= 2 && allEqual(rewards),
    band: bandOf(n, c),
    pass_at_k: pk,
    pass_hat_k: phk,
    infra_errors: all.filter((r) => r.infra).length,
  };
}

/**
 * The weighted reward each component cost a rollout (its share of the weights times what
 * it missed); the component that cost the most "decided" that the rollout fell short.
 */
function decidingComponents(r: ReportRollout): string[] {
  const live = r.components.filter((c) => !c.skipped);
  const totalWeight = live.reduce((s, c) => s + Math.abs(c.weight), 0);
  if (totalWeight === 0) return [];
  const lost = live.map((c) => ({ name: c.name, lost: (Math.abs(c.weight) / totalWeight) * (1 - c.score) }));
  const most = Math.max(...lost.map((l) => l.lost));
  if (!(most > 0)) return [];
  return lost.filter((l) => most - l.lost <= 1e-12).map((l) => l.name);
}

/** The mean over tasks of each k's rate, among the tasks with at least k scored rollouts. */
function overallRates(tasks: TaskReadiness[], ks: number[], field: "pass_at_k" | "pass_hat_k"): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ks) {
    const eligible = tasks.filter((t) => t.n >= k);
    if (eligible.length > 0) out[String(k)] = eligible.reduce((s, t) => s + (t[field][String(k)] ?? 0), 0) / eligible.length;
  }
  return out;
}

/** Groups (tasks with two or more scored rollouts) whose rewards are all equal: no learning signal. */
function zeroVariance(tasks: TaskReadiness[]): ReadinessReport["zero_variance"] {
  const groups = tasks.filter((t) => t.n >= 2);
  const zero = groups.filter((t) => t.zero_variance);
  const zeroRollouts = zero.reduce((s, t) => s + t.n, 0);
  const inGroups = groups.reduce((s, t) => s + t.n, 0);
  return {
    groups: groups.length,
    zero: zero.length,
    fraction: groups.length === 0 ? null : zero.length / groups.length,
    rollouts: zeroRollouts,
    rollouts_fraction: inGroups === 0 ? null : zeroRollouts / inGroups,
  };
}

/** The reward's components and failures, each component with how often it decided a rollout fell short. */
function componentsOf(rollouts: readonly ReportRollout[], scored: ReportRollout[]) {
  const breakdown = rewardBreakdown(rollouts.map((r) => ({ ...r, components: r.components })));
  const short = scored.filter((r) => !passed(r) && r.components.length > 0);
  const decides = new Map<string, number>();
  for (const r of short) for (const name of decidingComponents(r)) decides.set(name, (decides.get(name) ?? 0) + 1);
  return {
    components: breakdown.components.map((c) => ({
      ...c,
      decides: decides.get(c.name) ?? 0,
      decides_fraction: short.length === 0 ? null : (decides.get(c.name) ?? 0) / short.length,
    })),
    failures: breakdown.failures,
    ...(breakdown.not_run ? { not_run: breakdown.not_run } : {}),
  };
}

/** Where the time of the timed rollouts went; queueing is what the others do not account for. */
function timeOf(rollouts: readonly ReportRollout[]): ReadinessReport["time"] {
  const timed = rollouts.filter((r) => r.timings !== null);
  const sum = (f: (r: ReportRollout) => number) => timed.reduce((s, r) => s + f(r), 0);
  return {
    total_ms: sum((r) => r.timings!.total_ms),
    policy_ms: sum((r) => r.timings!.policy_ms),
    sandbox_ms: sum((r) => r.timings!.sandbox_ms),
    verify_ms: sum((r) => r.timings!.verify_ms),
    queue_ms: sum((r) => Math.max(0, r.timings!.total_ms - r.timings!.policy_ms - r.timings!.sandbox_ms - r.timings!.verify_ms)),
  };
}

/** Truncated rollouts and observations among the scored ones. */
function truncationOf(scored: ReportRollout[]): ReadinessReport["truncation"] {
  return {
    rollouts: scored.filter((r) => r.status === "truncated").length,
    rate: scored.length === 0 ? null : scored.filter((r) => r.status === "truncated").length / scored.length,
    observations: scored.reduce((s, r) => s + r.observations, 0),
    observations_truncated: scored.reduce((s, r) => s + r.observationsTruncated, 0),
  };
}

/** Turns and tokens per rollout, over the scored rollouts that reported usage. */
function perRolloutOf(scored: ReportRollout[]): ReadinessReport["per_rollout"] {
  const ended = scored.filter((r) => r.usage !== null);
  return {
    turns: spread(ended.map((r) => r.turns ?? 0)),
    prompt_tokens: spread(ended.map((r) => r.usage!.prompt_tokens)),
    completion_tokens: spread(ended.map((r) => r.usage!.completion_tokens)),
  };
}

/** Per task and overall: pass@k, pass^k, reward spread, zero-variance groups, bands, components, failures, time. */
export function buildReadiness(rollouts: readonly ReportRollout[], meta: ReadinessMeta): ReadinessReport {
  const byTask = new Map<string, ReportRollout[]>();
  for (const r of rollouts) byTask.set(r.task, [...(byTask.get(r.task) ?? []), r]);
  const tasks = [...byTask.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([t, rs]) => taskRow(t, rs));
  const scored = rollouts.filter(scoredRollout);
  const rewards = scored.map(rewardOf);
  const maxN = Math.max(0, ...tasks.map((t) => t.n));
  const ks = Array.from({ length: maxN }, (_, i) => i + 1);
  const histogram = Array.from({ length: 10 }, () => 0);
  for (const x of rewards) histogram[Math.min(9, Math.floor(x * 10))]!++;
  return {
    run_id: meta.runId,
    dir: meta.dir,
    env: meta.env,
    policy: meta.policy,
    rollouts: {
      total: rollouts.length,
      scored: scored.length,
      infra_errors: rollouts.filter((r) => r.infra).length,
      unscored: rollouts.filter((r) => !r.infra && UNSCORED.has(r.status)).length,
    },
    ks,
    pass_at_k: overallRates(tasks, ks, "pass_at_k"),
    pass_hat_k: overallRates(tasks, ks, "pass_hat_k"),
    reward: { mean: mean(rewards), std: std(rewards), histogram },
    zero_variance: zeroVariance(tasks),
    bands: {
      always: tasks.filter((t) => t.n > 0 && t.band === "always").length,
      learnable: tasks.filter((t) => t.band === "learnable").length,
      never: tasks.filter((t) => t.n > 0 && t.band === "never").length,
    },
    ...componentsOf(rollouts, scored),
    truncation: truncationOf(scored),
    per_rollout: perRolloutOf(scored),
    time: timeOf(rollouts),
    utilisation: meta.utilisation ?? null,
    concurrency: meta.concurrency ?? [],
    tasks,
  };
}
