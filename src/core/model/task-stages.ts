import type { FileMap } from "../schema/common";
import type { Solution, Task } from "../schema/task";
import type { RewardComponent } from "../schema/trajectory";
import type { VerifierConfig } from "../schema/verifier";

/**
 * One stage of a multi-stage task (Harbor's `[[steps]]`): its own prompt, hidden tests,
 * verifier settings, oracle and gate, played in turn in the one sandbox of the rollout.
 */
export interface TaskStage {
  name: string;
  prompt: string;
  tests?: Task["tests"];
  /** The oracle's moves for this stage. */
  solution?: Solution;
  /** Replaces the task's reward list for this stage (the stage's verifier timeout and env). */
  reward?: VerifierConfig[];
  /** Written into the workdir when the stage begins (Harbor's steps/<name>/workdir/). */
  files?: FileMap;
  /** Run in the workdir after the files are written; a non-zero exit fails the stage before the agent plays it. */
  setup?: string;
  /** The step's own agent time limit: past it the step's turns stop, its tests still run, and the next step may follow. */
  agentTimeoutSec?: number;
  /** The gate: a number gates the "reward" key; a table gates each key it names (a missing key is -inf). */
  minReward?: number | Record<string, number>;
}

/** A task played as stages; the reward is every reward key's mean over the stages that were scored, or the last stage's. */
export interface TaskStages {
  list: TaskStage[];
  strategy: "mean" | "final";
}

/** What one stage left: its components, or why it has none (setup failed, verifier crashed), and whether the gate held. */
export interface StageResult {
  stage: TaskStage;
  /** The stage's reward keys and their raw values; null when the stage has no verifier result. */
  rewards: Record<string, number> | null;
  components: RewardComponent[];
  error?: string;
}

/** The raw reward keys one stage's components give: a Harbor verifier's own values (unclamped), else each component's score. */
export function stageRewards(components: readonly RewardComponent[]): Record<string, number> | null {
  if (components.length === 0 || components.some((c) => c.error !== undefined)) return null;
  const out: Record<string, number> = {};
  for (const c of components) {
    const raw = (c.details as { rewards?: Record<string, unknown> } | undefined)?.rewards;
    const v = raw && typeof raw[c.name] === "number" ? (raw[c.name] as number) : c.score;
    out[c.name] = v;
  }
  return out;
}

/**
 * Why a stage's rewards fail its gate, or null when they pass (Harbor's MultiStepTrial): a
 * number gates the "reward" key, a table each key it names; a key that is missing, or a stage
 * with no verifier result, counts as -inf.
 */
export function gateFailure(rewards: Record<string, number> | null, minReward: TaskStage["minReward"]): string | null {
  if (minReward === undefined) return null;
  const thresholds = typeof minReward === "number" ? { reward: minReward } : minReward;
  for (const [key, threshold] of Object.entries(thresholds)) {
    const actual = rewards?.[key] ?? Number.NEGATIVE_INFINITY;
    if (actual < threshold) return `${key}=${actual === Number.NEGATIVE_INFINITY ? "missing" : actual} below min_reward ${threshold}`;
  }
  return null;
}

/**
 * The task's reward keys from its stages, as Harbor aggregates them: "final" takes the last
 * stage played; "mean" averages each key over the stages that have a verifier result (a key
 * a stage lacks counts 0 there). Null when no stage has a result.
 */
export function aggregateStageRewards(results: readonly StageResult[], strategy: TaskStages["strategy"]): Record<string, number> | null {
  if (results.length === 0) return null;
  if (strategy === "final") return results[results.length - 1]?.rewards ?? null;
  const scored = results.map((r) => r.rewards).filter((r): r is Record<string, number> => r !== null);
  const keys = [...new Set(scored.flatMap((r) => Object.keys(r)))];
  if (keys.length === 0) return null;
  return Object.fromEntries(keys.map((k) => [k, scored.reduce((s, r) => s + (r[k] ?? 0), 0) / scored.length]));
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The rollout's components from its stages: one per aggregated key (weight 1, so the total is
 * their mean, as a one-stage task scores), then one per stage (weight 0: shown, not counted),
 * the stages the gate kept from play scored 0 with the reason. No aggregate (no stage scored): the first
 * stage's failure is the one counted component.
 */
export function stageComponents(stages: TaskStages, results: readonly StageResult[], stoppedBy?: string): RewardComponent[] {
  const agg = aggregateStageRewards(results, stages.strategy);
  const out: RewardComponent[] = [];
  const how = stages.strategy === "final" ? "the last step's" : `the mean over ${results.filter((r) => r.rewards).length} scored step(s)`;
  if (agg)
    for (const [name, v] of Object.entries(agg))
      out.push({ name, type: "harbor", weight: 1, score: clamp01(v), passed: v >= 1, reason: `${name}=${v}: ${how}` });
  else {
    const failed = results.find((r) => r.rewards === null);
    out.push({
      name: "reward",
      type: "harbor",
      weight: 1,
      score: 0,
      passed: false,
      error: failed?.error ?? failed?.components.find((c) => c.error)?.error ?? "no step has a verifier result",
    });
  }
  stages.list.forEach((stage, i) => {
    const r = results[i];
    const name = `step ${stage.name}`;
    if (!r) {
      // Not `skipped` (that marks a verifier that could not grade): a step the gate kept from play is a 0 the agent earned.
      out.push({
        name,
        type: "harbor-step",
        weight: 0,
        score: 0,
        passed: false,
        reason: `not played: ${stoppedBy ?? "the rollout ended before it"}`,
      });
      return;
    }
    const vals = r.rewards ? Object.values(r.rewards) : [];
    const score = vals.length > 0 ? vals.reduce((s, v) => s + clamp01(v), 0) / vals.length : 0;
    out.push({
      name,
      type: "harbor-step",
      weight: 0,
      score,
      passed: vals.length > 0 && vals.every((v) => v >= 1),
      ...(r.rewards
        ? {
            reason: Object.entries(r.rewards)
              .map(([k, v]) => `${k}=${v}`)
              .join(", "),
          }
        : {}),
      ...(r.error || !r.rewards ? { error: r.error ?? r.components.find((c) => c.error)?.error ?? "no verifier result" } : {}),
      details: { rewards: r.rewards, components: r.components },
    });
  });
  return out;
}
