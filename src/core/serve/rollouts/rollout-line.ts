import type { RolloutResult } from "../../rollout/rollout-types";
import type { JudgeUsage, TrajectoryEvent, Usage } from "../../schema/trajectory";
import { maskArray, rolloutSequence } from "../../tokens/sequence";
import type { GroupStats } from "../../runs/group-advantage";

/**
 * One NDJSON line of `POST /v1/rollouts`: a finished rollout as a trainer reads it (see
 * docs/serve/rollouts.md). Token fields are null when the model server returned no token ids.
 */
export interface RolloutLine {
  type: "rollout";
  rollout_id: string;
  group_id: string;
  /** The rollout's index in its group (0 … group_size − 1). */
  group_index: number;
  environment: string;
  task: string;
  policy_version: string | number | null;
  /** The rollout's status; `infra_error` when the machinery failed it (sandbox, model server): never scored. */
  status: "completed" | "truncated" | "timeout" | "error" | "cancelled" | "infra_error";
  reason: string | null;
  /** The reward it was scored (an error or timeout of the agent's scores 0); null when not scored. */
  reward: number | null;
  reward_components: Array<{ name: string; type: string; weight: number; score: number; passed?: boolean }>;
  /** (reward − group mean) / (group std + 1e-6) over the group's scored rollouts; null when not scored. */
  advantage: number | null;
  group: { size: number; scored: number; mean: number; std: number };
  /** The final token sequence: the last prompt and its completion (earlier turns are its prefix). */
  token_ids: number[] | null;
  /** 1 on policy-sampled tokens, 0 on prompt, tool output and template tokens; as long as token_ids. */
  loss_mask: number[] | null;
  /** The sampler's logprob on each sampled token, 0 where loss_mask is 0. */
  logprobs: number[] | null;
  /** Tokens before the first sampled one. */
  prompt_length: number | null;
  /** How the tokens were had: server (ids and logprobs the model server returned), absent, partial (some turns had none). */
  capture: string;
  drift_turns: number;
  turns: number;
  /** Policy tokens in (prompt) and out (completion), as the model server counted them. */
  usage: Usage;
  sandbox_seconds: number | null;
  judge: JudgeUsage | null;
  timings: RolloutResult["timings"];
  reward_hash: string | null;
  /** The rollout's trajectory file on the server. */
  trajectory: string;
}

/** What the scoring of a rollout counts as its sample of the policy: null when it is none (infra error, cancelled). */
export function scoredReward(r: Pick<RolloutResult, "infra" | "status" | "reward">): number | null {
  if (r.infra || r.status === "cancelled") return null;
  // An error or timeout of the agent's own is a 0, as the run summary and the rl export count it.
  return r.reward ?? 0;
}

/** The token fields of a rollout from its trajectory events; nulls when the server returned no token ids. */
export function tokenFields(
  events: readonly TrajectoryEvent[],
): Pick<RolloutLine, "token_ids" | "loss_mask" | "logprobs" | "prompt_length" | "capture" | "drift_turns"> {
  const seq = rolloutSequence(events);
  if (!seq) return { token_ids: null, loss_mask: null, logprobs: null, prompt_length: null, capture: "absent", drift_turns: 0 };
  const mask = maskArray(seq.summary.loss_mask, seq.ids.length);
  return {
    token_ids: seq.ids,
    loss_mask: mask,
    logprobs: seq.logprobs,
    prompt_length: seq.summary.loss_mask[0]?.[0] ?? seq.ids.length,
    capture: seq.summary.capture,
    drift_turns: seq.summary.drift_turns,
  };
}

/** The line of one finished rollout, once its group's statistics are known. */
export function rolloutLine(o: {
  result: RolloutResult;
  events: readonly TrajectoryEvent[];
  environment: string;
  groupId: string;
  groupIndex: number;
  policyVersion: string | number | null;
  advantage: number | null;
  group: GroupStats & { size: number };
}): RolloutLine {
  const { result: r } = o;
  const scored = scoredReward(r);
  return {
    type: "rollout",
    rollout_id: r.rolloutId,
    group_id: o.groupId,
    group_index: o.groupIndex,
    environment: o.environment,
    task: r.task,
    policy_version: o.policyVersion,
    status: r.infra ? "infra_error" : r.status,
    reason: r.reason ?? null,
    reward: scored,
    reward_components: (r.components ?? []).map((c) => ({
      name: c.name,
      type: c.type,
      weight: c.weight,
      score: c.score,
      ...(c.passed !== undefined ? { passed: c.passed } : {}),
    })),
    advantage: o.advantage,
    group: { size: o.group.size, scored: o.group.n, mean: o.group.mean, std: o.group.std },
    ...tokenFields(o.events),
    turns: r.turns,
    usage: r.usage,
    sandbox_seconds: r.sandboxSeconds ?? null,
    judge: r.judge ?? null,
    timings: r.timings,
    reward_hash: r.rewardHash ?? null,
    trajectory: r.file,
  };
}
