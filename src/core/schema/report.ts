import * as z from "zod/mini";
import { described } from "./zod-mini";

// Written with zod/mini (see zod-mini.ts): the run dashboard's webview parses the readiness report.

const int = () => z.number().check(z.int());
const count = () => z.number().check(z.int(), z.nonnegative());

/** Difficulty band of a task by how many of its samples reached full marks. */
export const Band = z.enum(["always", "learnable", "never"]);
export type Band = z.infer<typeof Band>;

const Spread = z.object({ mean: z.nullable(z.number()), p50: z.nullable(z.number()), max: z.nullable(z.number()) });

/** One adaptive-concurrency decision, as the run recorded it (see rollout/concurrency-controller.ts). */
export const ConcurrencyDecision = z.object({
  t_ms: described(z.number().check(z.nonnegative()), "Since the run started"),
  limit: described(z.number().check(z.int(), z.positive()), "Rollouts allowed in flight from here on"),
  throughput: described(z.number().check(z.nonnegative()), "Policy replies per second over the window that led to it"),
  latency_ms: described(z.number().check(z.nonnegative()), "Mean policy latency over that window"),
  reason: z.string(),
});
export type ConcurrencyDecision = z.infer<typeof ConcurrencyDecision>;

export const TaskReadiness = z.object({
  task: z.string(),
  n: described(count(), "Scored samples (infrastructure failures, cancelled and interrupted left out)"),
  passed: count(),
  mean_reward: z.nullable(z.number()),
  std_reward: z.number(),
  zero_variance: described(z.boolean(), "Two or more samples, all with the same reward: no advantage for GRPO"),
  band: Band,
  pass_at_k: z.record(z.string(), z.number()),
  pass_hat_k: z.record(z.string(), z.number()),
  infra_errors: count(),
});
export type TaskReadiness = z.infer<typeof TaskReadiness>;

const Reasons = z.array(z.object({ reason: z.string(), count: int(), tasks: z.array(z.string()) }));

/** `rlenv report RUN`: is this task set worth training on, and where did the run's time go. */
export const ReadinessReport = z.object({
  run_id: z.string(),
  dir: z.string(),
  env: z.object({ name: z.string(), hash: z.string(), reward_hash: z.optional(z.string()) }),
  policy: z.string(),
  rollouts: z.object({
    total: int(),
    scored: int(),
    infra_errors: int(),
    unscored: described(int(), "Cancelled or interrupted"),
  }),
  ks: z.array(int()),
  pass_at_k: described(z.record(z.string(), z.number()), "Mean over tasks with at least k scored samples"),
  pass_hat_k: z.record(z.string(), z.number()),
  reward: z.object({
    mean: z.nullable(z.number()),
    std: z.number(),
    histogram: described(z.array(int()), "Ten bins over [0, 1]; 1 falls in the last"),
  }),
  zero_variance: z.object({
    groups: described(int(), "Tasks with two or more scored samples"),
    zero: int(),
    fraction: z.nullable(z.number()),
    rollouts: described(int(), "Scored rollouts spent on zero-variance groups"),
    rollouts_fraction: z.nullable(z.number()),
  }),
  bands: z.object({ always: int(), learnable: int(), never: int() }),
  components: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      n: int(),
      mean: z.number(),
      decides: described(int(), "Rollouts short of full marks where this component lost the most weighted reward"),
      decides_fraction: z.nullable(z.number()),
    }),
  ),
  failures: Reasons,
  not_run: described(
    z.optional(Reasons),
    "Checks that did not run (a judge-graded field with no judge endpoint, say): scored 0, never a pass, not a failure of the agent",
  ),
  truncation: z.object({
    rollouts: described(int(), "Scored rollouts that ended `truncated` (max turns)"),
    rate: z.nullable(z.number()),
    observations: int(),
    observations_truncated: int(),
  }),
  per_rollout: z.object({ turns: Spread, prompt_tokens: Spread, completion_tokens: Spread }),
  time: z.object({
    total_ms: z.number(),
    policy_ms: z.number(),
    sandbox_ms: z.number(),
    verify_ms: z.number(),
    queue_ms: described(z.number(), "The rest of each rollout's wall time: waiting for a slot, bookkeeping"),
  }),
  utilisation: z.nullable(z.object({ policy: z.number(), sandbox_busy_ms: z.number(), max_queue_depth: z.number(), wall_ms: z.number() })),
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
      a_mean: z.nullable(z.number()),
      b_mean: z.nullable(z.number()),
      delta: z.nullable(z.number()),
      a_band: Band,
      b_band: Band,
    }),
  ),
  only_a: z.array(z.string()),
  only_b: z.array(z.string()),
  mean_delta: described(z.nullable(z.number()), "Mean over shared tasks of b's mean reward minus a's"),
  sign_test: z.object({ better: int(), worse: int(), ties: int(), p: z.number() }),
  bootstrap: z.nullable(z.object({ lo: z.number(), hi: z.number(), resamples: int(), confidence: z.number() })),
  significant: described(z.boolean(), "The bootstrap interval leaves out 0"),
  reward_changed: described(
    z.optional(z.object({ a: z.string(), b: z.string() })),
    "Set when the two runs were scored by different reward definitions (their reward hashes): a delta may be the reward's, not the policy's",
  ),
  verdict: z.string(),
});
export type RunComparison = z.infer<typeof RunComparison>;
