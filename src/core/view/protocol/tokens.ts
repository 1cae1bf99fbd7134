import * as z from "zod/mini";
import "../../schema/zod-mini";

/**
 * The Steps panel's token view: one assistant turn's tokens as the policy saw and sampled them.
 * A turn's stored prompt (from `prompt_offset` on: the observations and template glue added since
 * the previous turn) comes first, then its completion (the sampled tokens). Lists are parallel
 * arrays over a window of the turn, so a 30,000-token turn travels a page at a time.
 */
export const TurnTokenWindow = z.object({
  /** The line of the assistant message in the trajectory (a step may hold more than one). */
  line: z.number().check(z.int()),
  capture: z.enum(["server", "engine", "absent"]),
  model: z.nullable(z.string()),
  finish_reason: z.nullable(z.string()),
  /** Position of the turn's first stored token in the rollout's token sequence. */
  offset: z.number().check(z.int(), z.nonnegative()),
  /** Stored prompt tokens of the turn (not sampled), then `completion` sampled ones. */
  prompt: z.number().check(z.int(), z.nonnegative()),
  completion: z.number().check(z.int(), z.nonnegative()),
  /** Set when this turn's prompt rewrote earlier tokens: the first position that differs. */
  drift_at: z.nullable(z.number().check(z.int(), z.nonnegative())),
  /**
   * The sequence position from which a later turn rewrote this one's tokens (drift): sampled tokens
   * at or past it are no longer in the loss mask. Null when every token of the turn stayed.
   */
  rewritten_from: z.nullable(z.number().check(z.int(), z.nonnegative())),
  /** Whether the completion has one logprob per sampled token. */
  has_logprobs: z.boolean(),
  /** Lowest, mean and highest logprob of the whole completion (not only the window). */
  logprob_stats: z.nullable(z.object({ min: z.number(), mean: z.number(), max: z.number() })),
  /** The window: index of its first token within the turn (0 = the first stored prompt token). */
  from: z.number().check(z.int(), z.nonnegative()),
  ids: z.array(z.number().check(z.int(), z.nonnegative())),
  /** One per id: the sampled token's logprob; null for prompt tokens and turns without logprobs. */
  logprobs: z.array(z.nullable(z.number())),
  /** One per id: the token's text piece where the trajectory records it; null: show the id. */
  text: z.nullable(z.array(z.nullable(z.string()))),
});
export type TurnTokenWindow = z.infer<typeof TurnTokenWindow>;

/** Tokens sent at once; the panel asks for the next window with "show more". */
export const TOKEN_PAGE = 2000;

export const TokenMethods = {
  /** The captured turns of a step (or the one at `line`), a window of each. */
  tokens: {
    params: z.object({
      file: z.string(),
      row: z.number().check(z.int(), z.nonnegative()),
      line: z.optional(z.number().check(z.int(), z.nonnegative())),
      from: z._default(z.number().check(z.int(), z.nonnegative()), 0),
      limit: z._default(z.number().check(z.int(), z.positive(), z.lte(20_000)), TOKEN_PAGE),
    }),
    result: z.array(TurnTokenWindow),
  },
} as const;
