import type { RunSummary } from "../schema/run";
import { type RolloutSpend, spendSummary } from "./accounting";
import type { RewardComponent } from "../schema/trajectory";
import { rewardBreakdown } from "./breakdown";
import { hackSignalSummary } from "./hack-summary";
import { passAtK, reportedKs } from "./pass-at-k";

/** A rollout's outcome as the summary needs it. `interrupted`: the trajectory has no end (the process was killed). */
export interface RolloutOutcome extends RolloutSpend {
  task: string;
  sample: number;
  status: string;
  reward: number | null;
  /** It ended on an infrastructure failure (sandbox lost, policy server down) after every retry: counted apart, never scored. */
  infra?: boolean | undefined;
  /** Why it ended (the end event's reason) and its reward components: for the summary's breakdown and failure table. */
  reason?: string | undefined;
  components?: readonly RewardComponent[] | undefined;
  /** The distinct hack signals its submission raised, and what the environment did with them. */
  hackSignals?: readonly string[] | undefined;
  hackAction?: "flag" | "zero" | undefined;
  /** Turns whose prompt tokens did not continue the previous turn's (token-capturing policies only). */
  driftTurns?: number | undefined;
}

/** Reward counted as full marks: floating sums of weights may land a hair under 1. */
export const PASS_REWARD = 1 - 1e-9;

/** The `statuses` key of rollouts that ended on an infrastructure failure (their status is `error`). */
export const INFRA_STATUS = "infra_error";

/** Rollouts that say nothing about the agent: stopped from outside or killed mid-way. */
const UNCOUNTED = new Set(["cancelled", "interrupted"]);

/** Whether a rollout's shown status (INFRA_STATUS for the infrastructure's failures) makes it a sample of the policy. */
export function isScoredStatus(status: string): boolean {
  return status !== INFRA_STATUS && !UNCOUNTED.has(status);
}

/**
 * Mean reward, unbiased pass@k and a per-task table. Errors and timeouts count as
 * reward 0 (they are the agent's or the environment's failures, never hidden);
 * cancelled and interrupted rollouts are listed in `statuses` but not scored, and so are
 * infrastructure failures (as `infra_error`, also counted in `infra_errors`).
 */
export function summarize(
  runId: string,
  outcomes: readonly RolloutOutcome[],
  opts: { k?: number; utilisation?: RunSummary["utilisation"] } = {},
): RunSummary {
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o.infra ? INFRA_STATUS : o.status] = (statuses[o.infra ? INFRA_STATUS : o.status] ?? 0) + 1;
  const scored = (o: RolloutOutcome) => !o.infra && isScoredStatus(o.status);
  const counted = outcomes.filter(scored);
  const infraErrors = outcomes.length - outcomes.filter((o) => !o.infra).length;
  const byTask = new Map<string, RolloutOutcome[]>();
  for (const o of outcomes) {
    if (!byTask.has(o.task)) byTask.set(o.task, []);
    if (scored(o)) byTask.get(o.task)!.push(o);
  }
  const maxN = Math.max(0, ...[...byTask.values()].map((v) => v.length));
  const ks = reportedKs(maxN, opts.k ? [opts.k] : []);
  const perTask: RunSummary["per_task"] = [...byTask.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([task, rs]) => {
      const n = rs.length;
      const passed = rs.filter((r) => (r.reward ?? 0) >= PASS_REWARD).length;
      const pk: Record<string, number> = {};
      for (const k of ks) if (k <= n) pk[String(k)] = passAtK(n, passed, k);
      return { task, n, passed, mean_reward: n === 0 ? null : rs.reduce((s, r) => s + (r.reward ?? 0), 0) / n, pass_at_k: pk };
    });
  const pass_at_k: Record<string, number> = {};
  for (const k of ks) {
    const eligible = perTask.filter((t) => t.n >= k);
    if (eligible.length > 0) pass_at_k[String(k)] = eligible.reduce((s, t) => s + (t.pass_at_k[String(k)] ?? 0), 0) / eligible.length;
  }
  return {
    run_id: runId,
    rollouts: outcomes.length,
    mean_reward: counted.length === 0 ? null : counted.reduce((s, o) => s + (o.reward ?? 0), 0) / counted.length,
    pass_at_k,
    statuses,
    per_task: perTask,
    ...(infraErrors > 0 ? { infra_errors: infraErrors } : {}),
    ...rewardBreakdown(outcomes),
    ...tokenDrift(outcomes),
    ...hackSignalSummary(outcomes),
    ...spendSummary(outcomes),
    ...(opts.utilisation ? { utilisation: opts.utilisation } : {}),
  };
}

/** Token drift over the rollouts that reported tokens: how many rollouts and turns re-tokenised their history. */
function tokenDrift(outcomes: readonly RolloutOutcome[]): Pick<RunSummary, "token_drift"> {
  const reported = outcomes.filter((o) => o.driftTurns !== undefined);
  if (reported.length === 0) return {};
  const drifted = reported.filter((o) => (o.driftTurns ?? 0) > 0);
  return {
    token_drift: {
      rollouts: drifted.length,
      turns: drifted.reduce((s, o) => s + (o.driftTurns ?? 0), 0),
      of_rollouts: reported.length,
    },
  };
}
