import * as z from "zod/mini";
import { described } from "./zod-mini";
import { RolloutStatus } from "./trajectory";

// Written with zod/mini (see zod-mini.ts): the run dashboard's webview parses the run record and
// summary it is sent, and its bundle then carries neither classic zod nor its start-up cost.

const int = () => z.number().check(z.int());
const count = () => z.number().check(z.int(), z.nonnegative());
const positiveInt = () => z.number().check(z.int(), z.positive());
const optional = <T extends z.ZodMiniType>(schema: T, description?: string) =>
  description === undefined ? z.optional(schema) : described(z.optional(schema), description);

export const PolicyConfig = z.object({
  kind: described(
    z.enum(["oracle", "nop", "replay", "openai", "human", "served"]),
    "served: a trainer's client played the episodes through `rlenv serve`",
  ),
  model: optional(z.string()),
  base_url: optional(z.string()),
  replay: optional(z.string(), "replay: the trajectory file or run folder"),
  temperature: optional(z.number()),
  top_p: optional(z.number()),
  max_tokens: optional(positiveInt()),
  seed: optional(int()),
  timeout_ms: optional(positiveInt()),
  stream: optional(z.boolean(), "openai: use server-sent events"),
  tokens: optional(
    z.boolean(),
    "openai: token-in/token-out: the engine renders the model's chat template and sends token ids to /completions",
  ),
  tokenizer: optional(z.string(), "openai --tokens: the model folder with tokenizer.json and tokenizer_config.json"),
  tool_parser: optional(z.string(), "openai --tokens: how tool calls are read from sampled text (hermes, qwen)"),
});
export type PolicyConfig = z.infer<typeof PolicyConfig>;

export const RunConfig = z.object({
  policy: PolicyConfig,
  tasks: optional(z.array(z.string()), "Task ids; all when absent"),
  k: described(z._default(positiveInt(), 1), "Samples per task"),
  concurrency: described(z._default(positiveInt(), 4), "Concurrent sandboxes"),
  policy_concurrency: optional(positiveInt(), "In-flight policy requests"),
  concurrency_auto: optional(
    z.boolean(),
    "Rollouts in flight follow the policy server's throughput, up to `concurrency`; decisions in concurrency.jsonl",
  ),
  sandbox: z._default(z.enum(["docker", "process", "auto"]), "auto"),
  seed: optional(int()),
  shard: optional(z.object({ index: count(), count: positiveInt() })),
  samples: optional(
    z.record(z.string(), z.array(count()).check(z.minLength(1))),
    "Only these sample indices of each named task (a pool's shard, or what a failed shard left); a task not named runs all k. Sample numbers keep their meaning: seed + i, rollout ids",
  ),
  infra_retries: optional(count(), "Tries after an infrastructure failure, each in a fresh sandbox (default 2)"),
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
  created: described(z.string(), "ISO time"),
  ended: optional(z.string()),
  status: RunStatus,
  env: z.object({
    name: z.string(),
    hash: z.string(),
    domain: z.string(),
    path: z.string(),
    reward_hash: optional(z.string(), "The reward definition's hash at the run's start (docs/provenance.md)"),
  }),
  config: RunConfig,
  host: optional(z.string()),
  version: optional(z.string()),
  owner: optional(
    z.object({ pid: int(), start: z.nullable(z.string()), host: z.string() }),
    "The process running the run (its pid, that process's start time and its host): a reader that finds it gone shows a `running` run as `interrupted`",
  ),
  resumed: optional(z.array(z.string()), "ISO times of each `rlenv run --resume` of this run"),
});
export type RunRecord = z.infer<typeof RunRecord>;

const Reasons = z.array(z.object({ reason: z.string(), count: int(), tasks: z.array(z.string()) }));

/** `runs/<run-id>/summary.json`, derived from the trajectories. */
export const RunSummary = z.object({
  run_id: z.string(),
  rollouts: count(),
  mean_reward: z.nullable(z.number()),
  pass_at_k: z.record(z.string(), z.number()),
  statuses: z.union([z.record(RolloutStatus, int()), z.record(z.string(), int())]),
  per_task: z.array(
    z.object({
      task: z.string(),
      n: int(),
      passed: int(),
      mean_reward: z.nullable(z.number()),
      pass_at_k: z.record(z.string(), z.number()),
    }),
  ),
  infra_errors: optional(
    count(),
    "Rollouts that ended on an infrastructure failure after every retry (statuses.infra_error): not in mean_reward, pass@k or per_task",
  ),
  components: optional(
    z.array(z.object({ name: z.string(), type: z.string(), n: int(), mean: z.number(), passed: int() })),
    "Each reward component's mean score over the scored rollouts, and how many it passed",
  ),
  fields: optional(
    z.array(z.object({ component: z.string(), field: z.string(), n: int(), mean: z.number(), passed: int() })),
    "Each field a fields verifier graded: its mean score and how many rollouts got it right",
  ),
  failures: optional(
    Reasons,
    "Why rollouts fell short (a component and its reason, or a status), with how many times, most frequent first; up to 5 example tasks each",
  ),
  not_run: optional(
    Reasons,
    "Checks that did not run (a judge-graded field with no judge endpoint, say): each scored 0 in its rollout's total and is not counted as passed; the component and why, how many times, up to 5 example tasks",
  ),
  token_drift: optional(
    z.object({
      rollouts: described(count(), "Rollouts with at least one drifted turn"),
      turns: described(count(), "Turns whose prompt tokens did not start with the previous prompt + completion"),
      of_rollouts: described(count(), "Rollouts whose policy reported tokens"),
    }),
    "Set when the policy reported tokens: a server that re-tokenises the chat each turn shows here",
  ),
  hack_signals: optional(
    z.object({
      rollouts: described(count(), "Rollouts whose submission raised at least one hack signal"),
      zeroed: described(count(), "Of those, the ones scored 0 for it (judge.hack_signals: zero)"),
      by_signal: described(z.record(z.string(), int()), "Rollouts that raised each signal"),
      tasks: described(z.array(z.string()), "Up to 10 tasks where one was raised"),
    }),
    "Set when a submission raised a hack signal (see docs/security.md): a class that climbs is a reward hack spreading",
  ),
  spent: optional(
    z.object({
      rollouts: described(count(), "Rollouts that recorded what they spent (older trajectories did not)"),
      sandbox_seconds: described(z.number().check(z.nonnegative()), "Seconds sandboxes were held, the agents' and judging ones"),
      policy_prompt_tokens: count(),
      policy_completion_tokens: count(),
      judge_calls: count(),
      judge_prompt_tokens: count(),
      judge_completion_tokens: count(),
    }),
    "What the run's rollouts spent, summed over every rollout (infra failures and cancelled ones cost too)",
  ),
  reward_hashes: optional(
    z.array(z.string()),
    "The reward definitions the rollouts were scored by; more than one: the reward changed during the run",
  ),
  utilisation: optional(
    z.object({
      policy: z.number().check(z.gte(0), z.lte(1)),
      sandbox_busy_ms: z.number().check(z.nonnegative()),
      max_queue_depth: count(),
      wall_ms: z.number().check(z.nonnegative()),
    }),
  ),
});
export type RunSummary = z.infer<typeof RunSummary>;
