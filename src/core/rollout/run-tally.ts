import type { RolloutResult } from "./rollout-types";

/**
 * A run's rollouts as they end, with running totals for its progress line: the mean reward
 * over the scored ones (not cancelled, not failed by the infrastructure) is kept as a sum and a
 * count, so each rollout's end costs the same however many ended before it.
 */
export class RunTally {
  readonly results: RolloutResult[];
  private scored = 0;
  private rewardSum = 0;

  constructor(kept: Iterable<RolloutResult> = []) {
    this.results = [];
    for (const r of kept) this.add(r);
  }

  add(r: RolloutResult): void {
    this.results.push(r);
    if (r.status !== "cancelled" && !r.infra) {
      this.scored += 1;
      this.rewardSum += r.reward ?? 0;
    }
  }

  get done(): number {
    return this.results.length;
  }

  /** Mean reward of the scored rollouts so far; null before the first. */
  get meanReward(): number | null {
    return this.scored === 0 ? null : this.rewardSum / this.scored;
  }
}
