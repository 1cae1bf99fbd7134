import type { RewardComponent } from "../schema/trajectory";

/** What the verdict reads of one finished rollout (the engine's RolloutResult has all of it). */
export interface JudgedRollout {
  task: string;
  status: string;
  reward: number | null;
  /** The end event's reason. */
  reason?: string;
  /** Why it fell short, in one line (see runs/failure.ts). */
  failure?: string;
  components?: RewardComponent[];
  /** Failed by the machinery after every retry: not a verdict on the task. */
  infra?: boolean;
}

/** One task's validation verdict: its oracle reaches `min` and its nop stays at or under `max`. */
export interface TaskVerdict {
  id: string;
  oracle: number | null;
  nop: number | null;
  ok: boolean;
  /** Why it is not ok, one line each; empty when ok. */
  problems: string[];
  /** Why the oracle could not be graded here (a judge field with no endpoint): neither passed nor failed. */
  skipped?: string;
}

/** The skipped (not graded) reasons among a rollout's reward components. */
export function skippedReasons(r: JudgedRollout | undefined): string[] {
  return (r?.components ?? []).flatMap((c) => (c.skipped ? [c.skipped] : []));
}

function nopProblem(nop: JudgedRollout | undefined, max: number): string[] {
  if (nop && nop.reward !== null && nop.reward <= max) return [];
  return [`nop scored ${nop?.reward ?? nop?.status}, must be ≤ ${max}`];
}

/**
 * The validation rule, the one copy the CLI, the editor and the runner use. An oracle
 * that could not be graded (a skipped component) is no verdict on the oracle, but nop must
 * still fail; a rollout failed by the machinery is no verdict at all and says so.
 */
export function judgeTask(
  id: string,
  oracle: JudgedRollout | undefined,
  nop: JudgedRollout | undefined,
  min: number,
  max: number,
): TaskVerdict {
  const scores = { oracle: oracle?.reward ?? null, nop: nop?.reward ?? null };
  if (!oracle) {
    const problems = ["oracle did not run", ...nopProblem(nop, max)];
    return { id, ...scores, ok: false, problems };
  }
  const skipped = skippedReasons(oracle);
  if (skipped.length > 0) {
    const problems = nopProblem(nop, max);
    return { id, ...scores, ok: problems.length === 0, problems, skipped: skipped.join("; ") };
  }
  const infra = [oracle, nop].flatMap((r, i) =>
    r?.infra
      ? [`${i === 0 ? "oracle" : "nop"} not judged: infrastructure failure after every retry (${r.reason ?? "no reason recorded"})`]
      : [],
  );
  if (infra.length > 0) return { id, ...scores, ok: false, problems: infra };
  const problems: string[] = [];
  // The oracle's failure says which component fell short and why, with the first telling line of what it ran.
  if (oracle.reward === null || oracle.reward < min) {
    const why = oracle.failure ? ` — ${oracle.failure}` : oracle.reason && oracle.status !== "completed" ? ` (${oracle.reason})` : "";
    problems.push(`oracle scored ${oracle.reward ?? oracle.status}, needs ≥ ${min}${why}`);
  }
  problems.push(...nopProblem(nop, max));
  return { id, ...scores, ok: problems.length === 0, problems };
}

/** A verdict in one line: the problems, or what passed (and what could not be graded). */
export function verdictLine(v: TaskVerdict, min: number, max: number): string {
  if (!v.ok) return v.problems.join("; ");
  if (v.skipped) return `oracle not graded (${v.skipped}); nop ${v.nop ?? "-"} ≤ ${max}`;
  return `oracle ${v.oracle ?? "-"} ≥ ${min}, nop ${v.nop ?? "-"} ≤ ${max}`;
}

/** Mean reward of a task's samples (null rewards count as 0, as a failed rollout scores nothing). */
export function meanReward(outcomes: ReadonlyArray<{ reward: number | null }>): number | null {
  if (outcomes.length === 0) return null;
  return outcomes.reduce((s, o) => s + (o.reward ?? 0), 0) / outcomes.length;
}
