import { z } from "zod";

/** Difficulty band of a task by how many of its samples reached full marks. */
export const Band = z.enum(["always", "learnable", "never"]);
export type Band = z.infer<typeof Band>;

const Spread = z.object({ mean: z.number().nullable(), p50: z.number().nullable(), max: z.number().nullable() });

/** One adaptive-concurrency decision, as the run recorded it (see rollout/concurrency-controller.ts). */
export const ConcurrencyDecision = z.object({
  t_ms: z.number().nonnegative().describe("Since the run started"),
  limit: z.number().int().positive().describe("Rollouts allowed in flight from here on"),
  throughput: z.number().nonnegative().describe("Policy replies per second over the window that led to it"),
  latency_ms: z.number().nonnegative().describe("Mean policy latency over that window"),
  reason: z.string(),
});
export type ConcurrencyDecision = z.infer<typeof ConcurrencyDecision>;

export const TaskReadiness = z.object({
  task: z.string(),
  n: z.number().int().nonnegative().describe("Scored samples (infrastructure failures, cancelled and interrupted left out)"),
  passed: z.number().int().nonnegative(),
  mean_reward: z.number().nullable(),
  std_reward: z.number(),
  zero_variance: z.boolean().describe("Two or more samples, all with the same reward: no advantage for GRPO"),
  band: Band,
  pass_at_k: z.record(z.string(), z.number()),
  pass_hat_k: z.record(z.string(), z.number()),
  infra_errors: z.number().int().nonnegative(),
});
export type TaskReadiness = z.infer<typeof TaskReadiness>;

/** `rlenv report RUN`: is this task set worth training on, and where did the run's time go. */
export const ReadinessReport = z.object({
  run_id: z.string(),
  dir: z.string(),
  env: z.object({ name: z.string(), hash: z.string(), reward_hash: z.string().optional() }),
  policy: z.string(),
  rollouts: z.object({
    total: z.number().int(),
    scored: z.number().int(),
    infra_errors: z.number().int(),
    unscored: z.number().int().describe("Cancelled or interrupted"),
  }),
  ks: z.array(z.number().int()),
  pass_at_k: z.record(z.string(), z.number()).describe("Mean over tasks with at least k scored samples"),
  pass_hat_k: z.record(z.string(), z.number()),
  reward: z.object({
    mean: z.number().nullable(),
    std: z.number(),
    histogram: z.array(z.number().int()).describe("Ten bins over [0, 1]; 1 falls in the last"),
  }),
  zero_variance: z.object({
    groups: z.number().int().describe("Tasks with two or more scored samples"),
    zero: z.number().int(),
    fraction: z.number().nullable(),
    rollouts: z.number().int().describe("Scored rollouts spent on zero-variance groups"),
    rollouts_fraction: z.number().nullable(),
  }),
  bands: z.object({ always: z.number().int(), learnable: z.number().int(), never: z.number().int() }),
  components: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      n: z.number().int(),
      mean: z.number(),
      decides: z.number().int().describe("Rollouts short of full marks where this component lost the most weighted reward"),
      decides_fraction: z.number().nullable(),
    }),
  ),
  failures: z.array(z.object({ reason: z.string(), count: z.number().int(), tasks: z.array(z.string()) })),
  not_run: z
    .array(z.object({ reason: z.string(), count: z.number().int(), tasks: z.array(z.string()) }))
    .optional()
    .describe(
      "Checks that did not run (a judge-graded field with no judge endpoint, say): scored 0, never a pass, not a failure of the agent",
    ),
  truncation: z.object({
    rollouts: z.number().int().describe("Scored rollouts that ended `truncated` (max turns)"),
    rate: z.number().nullable(),
    observations: z.number().int(),
    observations_truncated: z.number().int(),
  }),
  per_rollout: z.object({ turns: Spread, prompt_tokens: Spread, completion_tokens: Spread }),
  time: z.object({
    total_ms: z.number(),
    policy_ms: z.number(),
    sandbox_ms: z.number(),
    verify_ms: z.number(),
    queue_ms: z.number().describe("The rest of each rollout's wall time: waiting for a slot, bookkeeping"),
  }),
  utilisation: z.object({ policy: z.number(), sandbox_busy_ms: z.number(), max_queue_depth: z.number(), wall_ms: z.number() }).nullable(),
  concurrency: z.array(ConcurrencyDecision),
  tasks: z.array(TaskReadiness),
});
export type ReadinessReport = z.infer<typeof ReadinessReport>;

/** Two runs of one task set (two checkpoints): what changed, and whether it is more than noise. */
export const RunComparison = z.object({
  a: z.string(),
  b: z.string(),
  tasks: z.array(
    z.object({
      task: z.string(),
      a_mean: z.number().nullable(),
      b_mean: z.number().nullable(),
      delta: z.number().nullable(),
      a_band: Band,
      b_band: Band,
    }),
  ),
  only_a: z.array(z.string()),
  only_b: z.array(z.string()),
  mean_delta: z.number().nullable().describe("Mean over shared tasks of b's mean reward minus a's"),
  sign_test: z.object({ better: z.number().int(), worse: z.number().int(), ties: z.number().int(), p: z.number() }),
  bootstrap: z.object({ lo: z.number(), hi: z.number(), resamples: z.number().int(), confidence: z.number() }).nullable(),
  significant: z.boolean().describe("The bootstrap interval leaves out 0"),
  reward_changed: z
    .object({ a: z.string(), b: z.string() })
    .optional()
    .describe(
      "Set when the two runs were scored by different reward definitions (their reward hashes): a delta may be the reward's, not the policy's",
    ),
  verdict: z.string(),
});
export type RunComparison = z.infer<typeof RunComparison>;
