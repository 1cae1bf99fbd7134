import type { PolicyReply } from "../policy/types";
import type { RolloutTokens, TurnTokens, Usage } from "../schema/trajectory";
import { TokenLedger } from "../tokens/ledger";

/** What one episode spent, for its `end` event and its result: time by phase, tokens, turns taken. */
export class EpisodeAccount {
  readonly timings = { total_ms: 0, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 };
  readonly usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  turns = 0;
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
