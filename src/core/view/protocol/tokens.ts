import { z } from "zod";

/**
 * The Steps panel's token view: one assistant turn's tokens as the policy saw and sampled them.
 * A turn's stored prompt (from `prompt_offset` on: the observations and template glue added since
 * the previous turn) comes first, then its completion (the sampled tokens). Lists are parallel
 * arrays over a window of the turn, so a 30,000-token turn travels a page at a time.
 */
export const TurnTokenWindow = z.object({
  /** The line of the assistant message in the trajectory (a step may hold more than one). */
  line: z.number().int(),
  capture: z.enum(["server", "engine", "absent"]),
  model: z.string().nullable(),
  finish_reason: z.string().nullable(),
  /** Position of the turn's first stored token in the rollout's token sequence. */
  offset: z.number().int().nonnegative(),
  /** Stored prompt tokens of the turn (not sampled), then `completion` sampled ones. */
  prompt: z.number().int().nonnegative(),
  completion: z.number().int().nonnegative(),
  /** Set when this turn's prompt rewrote earlier tokens: the first position that differs. */
  drift_at: z.number().int().nonnegative().nullable(),
  /**
   * The sequence position from which a later turn rewrote this one's tokens (drift): sampled tokens
   * at or past it are no longer in the loss mask. Null when every token of the turn stayed.
   */
  rewritten_from: z.number().int().nonnegative().nullable(),
  /** Whether the completion has one logprob per sampled token. */
  has_logprobs: z.boolean(),
  /** Lowest, mean and highest logprob of the whole completion (not only the window). */
  logprob_stats: z.object({ min: z.number(), mean: z.number(), max: z.number() }).nullable(),
  /** The window: index of its first token within the turn (0 = the first stored prompt token). */
  from: z.number().int().nonnegative(),
  ids: z.array(z.number().int().nonnegative()),
  /** One per id: the sampled token's logprob; null for prompt tokens and turns without logprobs. */
  logprobs: z.array(z.number().nullable()),
  /** One per id: the token's text piece where the trajectory records it; null: show the id. */
  text: z.array(z.string().nullable()).nullable(),
});
export type TurnTokenWindow = z.infer<typeof TurnTokenWindow>;

/** Tokens sent at once; the panel asks for the next window with "show more". */
export const TOKEN_PAGE = 2000;

export const TokenMethods = {
  /** The captured turns of a step (or the one at `line`), a window of each. */
  tokens: {
    params: z.object({
      file: z.string(),
      row: z.number().int().nonnegative(),
      line: z.number().int().nonnegative().optional(),
      from: z.number().int().nonnegative().default(0),
      limit: z.number().int().positive().max(20_000).default(TOKEN_PAGE),
    }),
    result: z.array(TurnTokenWindow),
  },
} as const;
