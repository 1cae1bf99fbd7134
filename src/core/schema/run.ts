import { z } from "zod";
import { RolloutStatus } from "./trajectory";

export const PolicyConfig = z.object({
  kind: z
    .enum(["oracle", "nop", "replay", "openai", "human", "served"])
    .describe("served: a trainer's client played the episodes through `rlenv serve`"),
  model: z.string().optional(),
  base_url: z.string().optional(),
  replay: z.string().optional().describe("replay: the trajectory file or run folder"),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  timeout_ms: z.number().int().positive().optional(),
  stream: z.boolean().optional().describe("openai: use server-sent events"),
  tokens: z
    .boolean()
    .optional()
    .describe("openai: token-in/token-out: the engine renders the model's chat template and sends token ids to /completions"),
  tokenizer: z.string().optional().describe("openai --tokens: the model folder with tokenizer.json and tokenizer_config.json"),
  tool_parser: z.string().optional().describe("openai --tokens: how tool calls are read from sampled text (hermes, qwen)"),
});
export type PolicyConfig = z.infer<typeof PolicyConfig>;

export const RunConfig = z.object({
  policy: PolicyConfig,
  tasks: z.array(z.string()).optional().describe("Task ids; all when absent"),
  k: z.number().int().positive().default(1).describe("Samples per task"),
  concurrency: z.number().int().positive().default(4).describe("Concurrent sandboxes"),
  policy_concurrency: z.number().int().positive().optional().describe("In-flight policy requests"),
  concurrency_auto: z
    .boolean()
    .optional()
    .describe("Rollouts in flight follow the policy server's throughput, up to `concurrency`; decisions in concurrency.jsonl"),
  sandbox: z.enum(["docker", "process", "auto"]).default("auto"),
  seed: z.number().int().optional(),
  shard: z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() }).optional(),
  samples: z
    .record(z.string(), z.array(z.number().int().nonnegative()).min(1))
    .optional()
    .describe(
      "Only these sample indices of each named task (a pool's shard, or what a failed shard left); a task not named runs all k. Sample numbers keep their meaning: seed + i, rollout ids",
    ),
  infra_retries: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Tries after an infrastructure failure, each in a fresh sandbox (default 2)"),
});
export type RunConfig = z.infer<typeof RunConfig>;

/**
 * `incomplete`: the run ended, but some rollouts errored (the infrastructure's after every retry, or
 * the engine's): `rlenv run` exits 1, and `--resume` runs the infrastructure's again. `completed`: every
 * rollout ended with the agent's outcome.
 */
export const RunStatus = z.enum(["running", "completed", "incomplete", "cancelled", "failed", "interrupted"]);

/** `runs/<run-id>/run.json` */
export const RunRecord = z.object({
  id: z.string(),
  created: z.string().describe("ISO time"),
  ended: z.string().optional(),
  status: RunStatus,
  env: z.object({
    name: z.string(),
    hash: z.string(),
    domain: z.string(),
    path: z.string(),
    reward_hash: z.string().optional().describe("The reward definition's hash at the run's start (docs/provenance.md)"),
  }),
  config: RunConfig,
  host: z.string().optional(),
  version: z.string().optional(),
  owner: z
    .object({ pid: z.number().int(), start: z.string().nullable(), host: z.string() })
    .optional()
    .describe(
      "The process running the run (its pid, that process's start time and its host): a reader that finds it gone shows a `running` run as `interrupted`",
    ),
  resumed: z.array(z.string()).optional().describe("ISO times of each `rlenv run --resume` of this run"),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** `runs/<run-id>/summary.json`, derived from the trajectories. */
export const RunSummary = z.object({
  run_id: z.string(),
  rollouts: z.number().int().nonnegative(),
  mean_reward: z.number().nullable(),
  pass_at_k: z.record(z.string(), z.number()),
  statuses: z.record(RolloutStatus, z.number().int()).or(z.record(z.string(), z.number().int())),
  per_task: z.array(
    z.object({
      task: z.string(),
      n: z.number().int(),
      passed: z.number().int(),
      mean_reward: z.number().nullable(),
      pass_at_k: z.record(z.string(), z.number()),
    }),
  ),
  infra_errors: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      "Rollouts that ended on an infrastructure failure after every retry (statuses.infra_error): not in mean_reward, pass@k or per_task",
    ),
  components: z
    .array(z.object({ name: z.string(), type: z.string(), n: z.number().int(), mean: z.number(), passed: z.number().int() }))
    .optional()
    .describe("Each reward component's mean score over the scored rollouts, and how many it passed"),
  fields: z
    .array(z.object({ component: z.string(), field: z.string(), n: z.number().int(), mean: z.number(), passed: z.number().int() }))
    .optional()
    .describe("Each field a fields verifier graded: its mean score and how many rollouts got it right"),
  failures: z
    .array(z.object({ reason: z.string(), count: z.number().int(), tasks: z.array(z.string()) }))
    .optional()
    .describe(
      "Why rollouts fell short (a component and its reason, or a status), with how many times, most frequent first; up to 5 example tasks each",
    ),
  not_run: z
    .array(z.object({ reason: z.string(), count: z.number().int(), tasks: z.array(z.string()) }))
    .optional()
    .describe(
      "Checks that did not run (a judge-graded field with no judge endpoint, say): each scored 0 in its rollout's total and is not counted as passed; the component and why, how many times, up to 5 example tasks",
    ),
  token_drift: z
    .object({
      rollouts: z.number().int().nonnegative().describe("Rollouts with at least one drifted turn"),
      turns: z.number().int().nonnegative().describe("Turns whose prompt tokens did not start with the previous prompt + completion"),
      of_rollouts: z.number().int().nonnegative().describe("Rollouts whose policy reported tokens"),
    })
    .optional()
    .describe("Set when the policy reported tokens: a server that re-tokenises the chat each turn shows here"),
  hack_signals: z
    .object({
      rollouts: z.number().int().nonnegative().describe("Rollouts whose submission raised at least one hack signal"),
      zeroed: z.number().int().nonnegative().describe("Of those, the ones scored 0 for it (judge.hack_signals: zero)"),
      by_signal: z.record(z.string(), z.number().int()).describe("Rollouts that raised each signal"),
      tasks: z.array(z.string()).describe("Up to 10 tasks where one was raised"),
    })
    .optional()
    .describe("Set when a submission raised a hack signal (see docs/security.md): a class that climbs is a reward hack spreading"),
  spent: z
    .object({
      rollouts: z.number().int().nonnegative().describe("Rollouts that recorded what they spent (older trajectories did not)"),
      sandbox_seconds: z.number().nonnegative().describe("Seconds sandboxes were held, the agents' and judging ones"),
      policy_prompt_tokens: z.number().int().nonnegative(),
      policy_completion_tokens: z.number().int().nonnegative(),
      judge_calls: z.number().int().nonnegative(),
      judge_prompt_tokens: z.number().int().nonnegative(),
      judge_completion_tokens: z.number().int().nonnegative(),
    })
    .optional()
    .describe("What the run's rollouts spent, summed over every rollout (infra failures and cancelled ones cost too)"),
  reward_hashes: z
    .array(z.string())
    .optional()
    .describe("The reward definitions the rollouts were scored by; more than one: the reward changed during the run"),
  utilisation: z
    .object({
      policy: z.number().min(0).max(1),
      sandbox_busy_ms: z.number().nonnegative(),
      max_queue_depth: z.number().int().nonnegative(),
      wall_ms: z.number().nonnegative(),
    })
    .optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;
