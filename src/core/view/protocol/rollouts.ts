import * as z from "zod/mini";
import "../../schema/zod-mini";

/**
 * A run's rollouts, one row each: the dashboard's table, and the list the trajectory viewer's
 * compare panel picks from. Apart from the dashboard's other schemas (built on the run record's
 * and the reports') so the viewer parses the list without bundling those.
 */
export const RolloutRow = z.object({
  /** Path of the rollout file relative to the served root: what the viewer opens. */
  file: z.string(),
  id: z.string(),
  task: z.nullable(z.string()),
  sample: z.nullable(z.number().check(z.int())),
  status: z.string(),
  reward: z.nullable(z.number()),
  turns: z.nullable(z.number().check(z.int())),
  duration_ms: z.nullable(z.number()),
  tokens: z.nullable(z.number().check(z.int())),
  started: z.nullable(z.number()),
  ended: z.nullable(z.number()),
  /** The first unreadable lines, described; `problemCount` counts them all. */
  problems: z.array(z.string()),
  problemCount: z.number().check(z.int()),
  /** The start event's settings as flat key/value pairs (env.name, policy.model, policy.params.temperature, seed…), for filters. */
  meta: z._default(z.array(z.tuple([z.string(), z.string()])), []),
});
export type RolloutRow = z.infer<typeof RolloutRow>;

export const RolloutMethods = {
  /** The rollouts of the run folder `dir` (relative to the served root). */
  rollouts: { params: z.object({ dir: z.string() }), result: z.array(RolloutRow) },
} as const;
