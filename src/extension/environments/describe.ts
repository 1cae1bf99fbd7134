import type { TaskResult } from "../rollouts/results";

/** "✓ validated · reward 1.00": a task's last results in a few words for the tree. */
export function describeTaskResult(r: TaskResult | undefined): string {
  if (!r) return "";
  const parts: string[] = [];
  if (r.validation) parts.push(r.validation.passed ? "✓ validated" : "✗ validation failed");
  if (r.rollout) parts.push(`reward ${r.rollout.reward === null ? "–" : r.rollout.reward.toFixed(2)}`);
  return parts.join(" · ");
}
