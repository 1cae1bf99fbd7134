import type { RunProgress } from "../../core/rollout/run-environment";

/** One rollout's outcome as the editor keeps it. */
export interface TaskOutcome {
  task: string;
  sample: number;
  status: string;
  reward: number | null;
  file?: string;
  /** Why it fell short, in one line (the failing components and their reasons); absent at full marks. */
  failure?: string;
}

/** A task's validation verdict as the editor shows it (the rule itself is core/app/verdict.ts). */
export interface TaskValidation {
  task: string;
  passed: boolean;
  /** Why the oracle could not be graded (a judge with no endpoint): the task is neither passed nor failed. */
  skipped?: string;
  oracle?: TaskOutcome;
  nop?: TaskOutcome;
  reason: string;
}

/** The editor's outcome of a finished rollout, from the engine's progress event. */
export function outcomeOf(e: Extract<RunProgress, { type: "rollout-end" }>): TaskOutcome {
  return {
    task: e.task,
    sample: e.sample,
    status: e.status,
    reward: e.reward,
    file: e.file,
    ...(e.failure ? { failure: e.failure } : {}),
  };
}
