import * as z from "zod/mini";
import "./zod-mini";

/**
 * The trajectory event stream: one JSON object per line of `rollouts/<id>.jsonl`,
 * append-only. A crashed writer leaves a readable prefix; readers skip a torn last line.
 */
const at = {
  seq: z.number().check(z.int(), z.nonnegative(), z.describe("Position of the event in the file, from 0")),
  t: z.number().check(z.describe("Milliseconds since the Unix epoch")),
};
const count = () => z.number().check(z.int(), z.nonnegative());

export const Usage = z.object({
  prompt_tokens: z._default(count(), 0),
  completion_tokens: z._default(count(), 0),
});
export type Usage = z.infer<typeof Usage>;

/** What judge models spent grading one rollout. */
export const JudgeUsage = z.object({ calls: count(), prompt_tokens: count(), completion_tokens: count() });
export type JudgeUsage = z.infer<typeof JudgeUsage>;

export const ContentPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }),
]);
export type ContentPart = z.infer<typeof ContentPart>;

export const ChatToolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string().check(z.describe("The raw JSON text the policy produced")),
});
export type ChatToolCall = z.infer<typeof ChatToolCall>;

/**
 * The tokens of one policy turn, as the server sampled them (chat mode with capture) or as the engine
 * sent and received them (token-in/token-out). Id and logprob lists are base64 of little-endian
 * uint32 / float32 arrays (numpy: `np.frombuffer(base64.b64decode(s), "<u4")`): exact, and a third of
 * the size of JSON numbers. A turn's prompt is stored from `prompt_offset` on: the tokens before it are
 * the previous turn's prompt + completion, which the trajectory already holds.
 */
export const TurnTokens = z.object({
  capture: z
    .enum(["server", "engine", "absent"])
    .check(z.describe("server: ids and logprobs the server returned; engine: token-in/token-out; absent: the server returned none")),
  prompt_offset: z.optional(count()).check(z.describe("Leading prompt tokens equal to the previous turn's prompt + completion")),
  encoding: z
    .optional(z.number().check(z.int(), z.positive()))
    .check(
      z.describe(
        "How the ids are stored: 3, one base85 block in `packed`; 2, one base64 zlib block in `packed` (docs/exports.md); absent, three base64 fields (older runs)",
      ),
    ),
  packed: z
    .optional(z.string())
    .check(
      z.describe("encoding 3 or 2: the prompt ids from prompt_offset on, the completion ids and their float32 logprobs, in one block"),
    ),
  prompt_ids: z.optional(z.string()).check(z.describe("Older runs: base64 <u4: this turn's prompt tokens from prompt_offset on")),
  completion_ids: z.optional(z.string()).check(z.describe("Older runs: base64 <u4: the sampled tokens")),
  logprobs: z
    .optional(z.string())
    .check(z.describe("Older runs: base64 <f4: the sampled tokens' log-probabilities, one per completion id")),
  drift_at: z
    .optional(count())
    .check(z.describe("Set when this prompt does not start with the previous prompt + completion: the first position that differs")),
  finish_reason: z.optional(z.string()),
  model: z.optional(z.string()).check(z.describe("The model the server says answered")),
  revision: z.optional(z.string()).check(z.describe("The server's system_fingerprint or model revision, when it reports one")),
});
export type TurnTokens = z.infer<typeof TurnTokens>;

/** The rollout's token sequence at its end: what a trainer trains on. */
export const RolloutTokens = z.object({
  capture: z.enum(["server", "engine", "absent", "partial"]).check(z.describe("partial: some turns had no capture")),
  length: count().check(z.describe("Tokens in the final sequence (last prompt + last completion)")),
  loss_mask: z
    .array(z.tuple([count(), count()]))
    .check(
      z.describe("[start, end) ranges of policy-sampled tokens in the sequence; every other token is prompt, observation or template glue"),
    ),
  drift_turns: count().check(z.describe("Turns whose prompt did not start with the previous prompt + completion")),
});
export type RolloutTokens = z.infer<typeof RolloutTokens>;

export const StartEvent = z.object({
  type: z.literal("start"),
  ...at,
  run_id: z.string(),
  rollout_id: z.string(),
  env: z.object({ name: z.string(), hash: z.string(), domain: z.string() }),
  task: z.object({ id: z.string(), prompt: z.string() }),
  policy: z.object({ kind: z.string(), model: z.optional(z.string()), params: z.optional(z.record(z.string(), z.unknown())) }),
  sample: count(),
  seed: z.optional(z.number().check(z.int())),
  sandbox: z.object({ backend: z.string(), image: z.optional(z.string()), id: z.optional(z.string()) }),
  tools: z
    .optional(z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })))
    .check(z.describe("The tools offered to the policy, as it saw them (for chat exports)")),
  reward_hash: z
    .optional(z.string())
    .check(
      z.describe(
        "Hash of the environment's reward definition (verifiers, the files they name, judge prompts, comparator settings, every task's hidden tests and targets): see docs/provenance.md",
      ),
    ),
  task_reward_hash: z.optional(z.string()).check(z.describe("This task's part of the reward definition, hashed alone")),
  forked_from: z
    .optional(z.object({ rollout_id: z.string(), file: z.string(), turn: count() }))
    .check(z.describe("Set when the debugger forked this rollout from another one paused at `turn`; the history before it is in `file`")),
  attempt: z
    .optional(z.number().check(z.int(), z.positive()))
    .check(z.describe("Which try of this rollout this is; set from the second, after tries that ended on an infrastructure failure")),
  previous_attempts: z
    .optional(z.array(z.object({ file: z.string().check(z.describe("Relative to the run folder")), reason: z.string() })))
    .check(
      z.describe(
        "The earlier tries of this rollout that the infrastructure failed (sandbox lost, policy server down), kept apart under attempts/",
      ),
    ),
});

export const MessageEvent = z.object({
  type: z.literal("message"),
  ...at,
  role: z.enum(["system", "user", "assistant"]),
  content: z.nullable(z.union([z.string(), z.array(ContentPart)])),
  tool_calls: z.optional(z.array(ChatToolCall)),
  usage: z.optional(Usage),
  latency_ms: z.optional(z.number().check(z.nonnegative())),
  turn: z.optional(count()),
  tokens: z.optional(TurnTokens).check(z.describe("The turn's tokens (assistant messages of token-capturing policies)")),
});

export const ToolCallEvent = z.object({
  type: z.literal("tool_call"),
  ...at,
  id: z.string(),
  name: z.string(),
  arguments: z.unknown().check(z.describe("Parsed arguments, or the raw string when they were not valid JSON")),
  edited: z.optional(z.boolean()).check(z.describe("Changed by a person in the debugger before it ran")),
  turn: z.optional(count()),
});

export const FileDiff = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  before: z.nullable(z.string()),
  after: z.nullable(z.string()),
  binary: z.optional(z.boolean()),
});
export type FileDiff = z.infer<typeof FileDiff>;

export const Citation = z.object({
  document: z.string(),
  page: z.optional(z.number().check(z.int())),
  start: count(),
  end: count(),
  text: z.optional(z.string()),
});
export type Citation = z.infer<typeof Citation>;

const vec3 = () => z.tuple([z.number(), z.number(), z.number()]);

export const SceneNode = z.object({
  name: z.string(),
  kind: z.string(),
  parent: z.nullable(z.string()),
  position: vec3().check(z.describe("World-space position")),
  rotation: vec3().check(z.describe("World-space Euler XYZ, degrees")),
  scale: vec3(),
  dimensions: vec3().check(z.describe("World-space size of the oriented box")),
  center: z
    .optional(vec3())
    .check(z.describe("World-space centre of the oriented box; the position when absent (they differ for off-centre assets)")),
  color: z.optional(z.string()),
  material: z.optional(z.record(z.string(), z.unknown())),
  bbox: z.object({ min: vec3(), max: vec3() }),
  asset: z.optional(z.string()),
});
export type SceneNode = z.infer<typeof SceneNode>;

export const SceneSnapshot = z.object({
  nodes: z.array(SceneNode),
  gltf: z.optional(z.string()).check(z.describe("Base64 glTF binary where the backend exports one")),
});
export type SceneSnapshot = z.infer<typeof SceneSnapshot>;

export const Artifacts = z.object({
  diff: z.optional(z.array(FileDiff)),
  scene: z.optional(SceneSnapshot),
  citations: z.optional(z.array(Citation)),
  images: z.optional(z.array(z.object({ mime: z.string(), data: z.string().check(z.describe("base64")) }))),
  cases: z.optional(z.array(z.record(z.string(), z.unknown()))).check(z.describe("Per-case results of a stdio run")),
});
export type Artifacts = z.infer<typeof Artifacts>;

export const ObservationEvent = z.object({
  type: z.literal("observation"),
  ...at,
  tool_call_id: z.string(),
  name: z.string(),
  output: z.union([z.string(), z.array(ContentPart)]),
  exit_code: z.optional(z.nullable(z.number().check(z.int()))),
  status: z._default(z.enum(["ok", "error", "timeout", "oom", "killed"]), "ok"),
  duration_ms: z.number().check(z.nonnegative()),
  truncated: z.optional(z.object({ original_chars: z.number().check(z.int()), kept_chars: z.number().check(z.int()) })),
  error: z.optional(z.string()),
  artifacts: z.optional(Artifacts),
  turn: z.optional(count()),
});

/** A score from 0 to 1. */
const unit = () => z.number().check(z.gte(0), z.lte(1));

export const RewardComponent = z.object({
  name: z.string(),
  type: z.string(),
  weight: z.number(),
  score: unit(),
  passed: z.optional(z.boolean()),
  reason: z.optional(z.string()),
  error: z.optional(z.string()),
  skipped: z.optional(z.string()).check(z.describe("Why the verifier did not run; never counted as passed")),
  details: z.optional(z.unknown()),
  duration_ms: z.optional(z.number().check(z.nonnegative())),
});
export type RewardComponent = z.infer<typeof RewardComponent>;

/** What the scan of a submission found that no honest solution does (see reward/hack-signals.ts). */
export const HackSignal = z.object({
  signal: z.string().check(z.describe("The class: test-framework, sys-modules, builtins, frame-introspection, process-peek, …")),
  path: z.string().check(z.describe("The workdir file that raised it")),
  line: z.optional(count()),
  detail: z.string().check(z.describe("The line that matched, or why the file was not judged")),
});
export type HackSignal = z.infer<typeof HackSignal>;

export const RewardEvent = z.object({
  type: z.literal("reward"),
  ...at,
  total: unit(),
  components: z.array(RewardComponent),
  hack_signals: z.optional(z.array(HackSignal)).check(z.describe("The submission's hack signals, when it raised any")),
  hack_action: z
    .optional(z.enum(["flag", "zero"]))
    .check(z.describe("What the environment does with them: flag (recorded) or zero (the total set to 0)")),
  judged_in: z.optional(z.enum(["fresh", "agent"])).check(z.describe("Where the code-running verifiers ran")),
});

export const ErrorEvent = z.object({
  type: z.literal("error"),
  ...at,
  where: z.enum(["sandbox", "policy", "tool", "verifier", "engine"]),
  message: z.string(),
  infra: z._default(z.boolean(), false).check(z.describe("Infrastructure failure (retried) rather than a task failure")),
  stderr: z.optional(z.string()),
  stack: z.optional(z.string()),
});

export const RolloutStatus = z.enum(["completed", "truncated", "timeout", "error", "cancelled"]);
export type RolloutStatus = z.infer<typeof RolloutStatus>;

export const EndEvent = z.object({
  type: z.literal("end"),
  ...at,
  status: RolloutStatus,
  reason: z.optional(z.string()),
  reward: z.nullable(unit()),
  turns: count(),
  usage: Usage,
  timings: z.object({
    total_ms: z.number().check(z.nonnegative()),
    policy_ms: z.number().check(z.nonnegative()),
    sandbox_ms: z.number().check(z.nonnegative()),
    verify_ms: z.number().check(z.nonnegative()),
  }),
  tokens: z.optional(RolloutTokens).check(z.describe("Set when the policy reported tokens for at least one turn")),
  sandbox_seconds: z
    .optional(z.number().check(z.nonnegative()))
    .check(
      z.describe(
        "Seconds the rollout held sandboxes: from asking the pool for each (its own and any judging one) to handing it back, summed",
      ),
    ),
  judge: z
    .optional(JudgeUsage)
    .check(z.describe("Judge model requests the rollout's verifiers made (answered ones) and the tokens they took")),
});

export const TrajectoryEvent = z.discriminatedUnion("type", [
  StartEvent,
  MessageEvent,
  ToolCallEvent,
  ObservationEvent,
  RewardEvent,
  ErrorEvent,
  EndEvent,
]);
export type TrajectoryEvent = z.infer<typeof TrajectoryEvent>;
export type StartEvent = z.infer<typeof StartEvent>;
export type MessageEvent = z.infer<typeof MessageEvent>;
export type ToolCallEvent = z.infer<typeof ToolCallEvent>;
export type ObservationEvent = z.infer<typeof ObservationEvent>;
export type RewardEvent = z.infer<typeof RewardEvent>;
export type ErrorEvent = z.infer<typeof ErrorEvent>;
export type EndEvent = z.infer<typeof EndEvent>;
/** An event before the writer stamps `seq` and `t`. */
export type TrajectoryEventInput = TrajectoryEvent extends infer E ? (E extends TrajectoryEvent ? Omit<E, "seq" | "t"> : never) : never;
