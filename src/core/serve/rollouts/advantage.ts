import { ADVANTAGE_EPSILON, advantage, groupStats, type GroupStats } from "../../runs/group-advantage";

/** A finished rollout as its group needs it: its reward, or null when it says nothing of the policy (infra error, cancelled). */
export interface GroupMember {
  /** Null: not scored, left out of the group's statistics and given no advantage. */
  scored: number | null;
}

/**
 * GRPO's group-normalised advantage, (r − mean) / (std + ε), with the sample standard deviation
 * (n − 1) and ε = ADVANTAGE_EPSILON, as rlenv's rl-jsonl export computes it (one definition). The
 * statistics are over the scored members only: an infrastructure failure is not a sample of the
 * policy, so it neither drags the mean nor gets an advantage. A group of one scored member gets 0.
 */
export function groupAdvantages(members: readonly GroupMember[]): { stats: GroupStats; advantages: Array<number | null> } {
  const rewards = members.flatMap((m) => (m.scored === null ? [] : [m.scored]));
  const stats = groupStats(rewards);
  return { stats, advantages: members.map((m) => (m.scored === null ? null : advantage(m.scored, stats))) };
}

export { ADVANTAGE_EPSILON };
