import type { RunSummary } from "../schema/run";

/** A rollout's hack signals as the summary counts them: the distinct classes, and whether they zeroed it. */
export interface RolloutHackSignals {
  task: string;
  hackSignals?: readonly string[] | undefined;
  hackAction?: "flag" | "zero" | undefined;
}

/**
 * The run's hack signals: how many rollouts raised one, how many were zeroed for it, per class,
 * and a few tasks where it happened. Absent when no rollout raised any, so a clean run's summary
 * is unchanged; a class that climbs from run to run is a reward hack the policy is learning.
 */
export function hackSignalSummary(outcomes: readonly RolloutHackSignals[]): Pick<RunSummary, "hack_signals"> {
  const flagged = outcomes.filter((o) => (o.hackSignals?.length ?? 0) > 0);
  if (flagged.length === 0) return {};
  const bySignal: Record<string, number> = {};
  for (const o of flagged) for (const s of new Set(o.hackSignals)) bySignal[s] = (bySignal[s] ?? 0) + 1;
  return {
    hack_signals: {
      rollouts: flagged.length,
      zeroed: flagged.filter((o) => o.hackAction === "zero").length,
      by_signal: bySignal,
      tasks: [...new Set(flagged.map((o) => o.task))].slice(0, 10),
    },
  };
}
