import type { PolicyReply } from "../policy/types";
import { emptyJudgeUsage, type JudgeUsage } from "../reward/judge-meter";
import { rolloutFailure } from "../runs/failure";
import type { RewardComponent, RolloutStatus, RolloutTokens, TurnTokens, Usage } from "../schema/trajectory";
import { TokenLedger } from "../tokens/ledger";
import type { EpisodeOptions, RolloutResult } from "./rollout-types";

/** A scored episode's reward, its components, and the hack signals its submission raised (with what was done about them). */
export interface Verdict {
  reward: number;
  components: RewardComponent[];
  hack?: { signals: string[]; action: "flag" | "zero" };
}

/** What one episode spent, for its `end` event and its result: time by phase, tokens, turns taken. */
export class EpisodeAccount {
  readonly timings = { total_ms: 0, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 };
  readonly usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  turns = 0;
  /** Judge model requests the verifiers made (counted by reward/judge-meter.ts while the episode is judged). */
  readonly judge: JudgeUsage = emptyJudgeUsage();
  /** Seconds sandboxes were held (the scope's count, set at close). */
  sandboxSeconds = 0;
  // The rollout's token sequence, when the policy reports the tokens it sampled.
  private readonly ledger = new TokenLedger();

  /** One reply of turn `turn` counted: its time, its usage; the turn's tokens as the ledger places them, when the policy reported them. */
  reply(reply: PolicyReply, turn: number, policyMs: number): TurnTokens | undefined {
    this.timings.policy_ms += policyMs;
    this.turns = turn + 1;
    if (reply.usage) {
      this.usage.prompt_tokens += reply.usage.prompt_tokens;
      this.usage.completion_tokens += reply.usage.completion_tokens;
    }
    return reply.tokens ? this.ledger.record(reply.tokens) : undefined;
  }

  /** The whole token sequence's summary; undefined when no reply reported tokens. */
  tokens(): RolloutTokens | undefined {
    return this.ledger.summary();
  }
}

/** An episode's result as its driver (the scheduler, a caller) reads it, once closed. */
export function episodeResult(r: {
  o: EpisodeOptions;
  status: RolloutStatus;
  reason: string | undefined;
  infra: boolean;
  verdict: Verdict | null;
  answer: unknown;
  account: EpisodeAccount;
  tokens: RolloutTokens | undefined;
  rewardHash: string;
}): RolloutResult {
  const { o, status, reason, verdict, account, tokens } = r;
  const reward = verdict?.reward ?? null;
  const components = verdict?.components;
  const failure = status === "cancelled" ? undefined : rolloutFailure({ status, reason, reward, components });
  return {
    rolloutId: o.rolloutId,
    file: o.file ?? "",
    task: o.task.id,
    sample: o.sample ?? 0,
    status,
    ...(reason ? { reason } : {}),
    reward,
    ...(failure ? { failure } : {}),
    ...(components ? { components } : {}),
    ...(verdict?.hack ? { hackSignals: verdict.hack.signals, hackAction: verdict.hack.action } : {}),
    infra: r.infra,
    answer: r.answer,
    turns: account.turns,
    usage: account.usage,
    timings: account.timings,
    ...(tokens ? { driftTurns: tokens.drift_turns } : {}),
    sandboxSeconds: account.sandboxSeconds,
    judge: { ...account.judge },
    rewardHash: r.rewardHash,
  };
}
