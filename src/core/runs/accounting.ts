import type { RunSummary } from "../schema/run";
import type { JudgeUsage, Usage } from "../schema/trajectory";

/** What one rollout spent and the reward it was scored by, as its trajectory or result records them (absent in older runs). */
export interface RolloutSpend {
  usage?: Usage | undefined;
  sandboxSeconds?: number | undefined;
  judge?: JudgeUsage | undefined;
  rewardHash?: string | undefined;
}

/**
 * The run's spend summed over its rollouts (every one, scored or not: an infra failure costs too),
 * and the reward definitions its rollouts were scored by: more than one hash means the reward
 * changed during the run (a resume after an edit), and its rewards are not one population.
 */
export function spendSummary(rollouts: readonly RolloutSpend[]): Pick<RunSummary, "spent" | "reward_hashes"> {
  const hashes = [...new Set(rollouts.flatMap((r) => (r.rewardHash ? [r.rewardHash] : [])))].sort();
  const reporting = rollouts.filter((r) => r.sandboxSeconds !== undefined);
  const sum = (f: (r: RolloutSpend) => number | undefined) => rollouts.reduce((s, r) => s + (f(r) ?? 0), 0);
  return {
    ...(reporting.length > 0
      ? {
          spent: {
            rollouts: reporting.length,
            sandbox_seconds: sum((r) => r.sandboxSeconds),
            policy_prompt_tokens: sum((r) => r.usage?.prompt_tokens),
            policy_completion_tokens: sum((r) => r.usage?.completion_tokens),
            judge_calls: sum((r) => r.judge?.calls),
            judge_prompt_tokens: sum((r) => r.judge?.prompt_tokens),
            judge_completion_tokens: sum((r) => r.judge?.completion_tokens),
          },
        }
      : {}),
    ...(hashes.length > 0 ? { reward_hashes: hashes } : {}),
  };
}
