/** Added to the group's standard deviation so a group whose rewards are all equal gets advantage 0, not NaN. */
export const ADVANTAGE_EPSILON = 1e-6;

export interface GroupStats {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1), as GRPO implementations compute it; 0 for a group of one. */
  std: number;
}

export function groupStats(rewards: readonly number[]): GroupStats {
  const n = rewards.length;
  if (n === 0) return { n: 0, mean: 0, std: 0 };
  const mean = rewards.reduce((s, r) => s + r, 0) / n;
  const variance = n < 2 ? 0 : rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / (n - 1);
  return { n, mean, std: Math.sqrt(variance) };
}

/** The group-normalised advantage (r − mean) / (std + ε). */
export const advantage = (reward: number, g: GroupStats): number => (reward - g.mean) / (g.std + ADVANTAGE_EPSILON);
