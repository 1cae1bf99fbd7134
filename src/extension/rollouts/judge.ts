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

/** A task's validation verdict: the oracle reaches `min`, the nop policy stays at or under `max`. */
export interface TaskValidation {
  task: string;
  passed: boolean;
  oracle?: TaskOutcome;
  nop?: TaskOutcome;
  reason: string;
}

const fmt = (r: number | null | undefined) => (r === null || r === undefined ? "no reward" : r.toFixed(2));

/** The verdict for one task from its oracle and nop rollouts (either may be missing after a cancel or crash). */
export function judgeValidation(
  task: string,
  oracle: TaskOutcome | undefined,
  nop: TaskOutcome | undefined,
  min: number,
  max: number,
): TaskValidation {
  const problems: string[] = [];
  if (!oracle) problems.push("the oracle did not run");
  else if (oracle.reward === null || oracle.reward < min)
    problems.push(
      `the oracle scored ${fmt(oracle.reward)} (${oracle.status}), below the required ${min}${oracle.failure ? ` — ${oracle.failure}` : ""}`,
    );
  if (!nop) problems.push("the nop policy did not run");
  else if (nop.reward === null) problems.push(`the nop policy ended ${nop.status} with no reward`);
  else if (nop.reward > max)
    problems.push(`the nop policy scored ${fmt(nop.reward)}, above the allowed ${max}: the task can be passed without doing anything`);
  const passed = problems.length === 0;
  return {
    task,
    passed,
    ...(oracle ? { oracle } : {}),
    ...(nop ? { nop } : {}),
    reason: passed ? `oracle ${fmt(oracle?.reward)} ≥ ${min}, nop ${fmt(nop?.reward)} ≤ ${max}` : problems.join("; "),
  };
}

/** Mean reward of a task's samples (null rewards count as 0, as a failed rollout scores nothing). */
export function meanReward(outcomes: TaskOutcome[]): number | null {
  if (outcomes.length === 0) return null;
  return outcomes.reduce((s, o) => s + (o.reward ?? 0), 0) / outcomes.length;
}
