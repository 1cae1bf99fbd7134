import { z } from "zod";

/**
 * The trajectory event stream: one JSON object per line of `rollouts/<id>.jsonl`,
 * append-only. A crashed writer leaves a readable prefix; readers skip a torn last line.
 */
const at = {
  seq: z.number().int().nonnegative().describe("Position of the event in the file, from 0"),
  t: z.number().describe("Milliseconds since the Unix epoch"),
};

export const Usage = z.object({
  prompt_tokens: z.number().int().nonnegative().default(0),
  completion_tokens: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof Usage>;

export const ContentPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }),
]);
export type ContentPart = z.infer<typeof ContentPart>;

export const ChatToolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string().describe("The raw JSON text the policy produced"),
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
    .describe("server: ids and logprobs the server returned; engine: token-in/token-out; absent: the server returned none"),
  prompt_offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Leading prompt tokens equal to the previous turn's prompt + completion"),
  encoding: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "How the ids are stored: 3, one base85 block in `packed`; 2, one base64 zlib block in `packed` (docs/exports.md); absent, three base64 fields (older runs)",
    ),
  packed: z
    .string()
    .optional()
    .describe("encoding 3 or 2: the prompt ids from prompt_offset on, the completion ids and their float32 logprobs, in one block"),
  prompt_ids: z.string().optional().describe("Older runs: base64 <u4: this turn's prompt tokens from prompt_offset on"),
  completion_ids: z.string().optional().describe("Older runs: base64 <u4: the sampled tokens"),
  logprobs: z.string().optional().describe("Older runs: base64 <f4: the sampled tokens' log-probabilities, one per completion id"),
  drift_at: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Set when this prompt does not start with the previous prompt + completion: the first position that differs"),
  finish_reason: z.string().optional(),
  model: z.string().optional().describe("The model the server says answered"),
  revision: z.string().optional().describe("The server's system_fingerprint or model revision, when it reports one"),
});
export type TurnTokens = z.infer<typeof TurnTokens>;

/** The rollout's token sequence at its end: what a trainer trains on. */
export const RolloutTokens = z.object({
  capture: z.enum(["server", "engine", "absent", "partial"]).describe("partial: some turns had no capture"),
  length: z.number().int().nonnegative().describe("Tokens in the final sequence (last prompt + last completion)"),
  loss_mask: z
    .array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]))
    .describe("[start, end) ranges of policy-sampled tokens in the sequence; every other token is prompt, observation or template glue"),
  drift_turns: z.number().int().nonnegative().describe("Turns whose prompt did not start with the previous prompt + completion"),
});
export type RolloutTokens = z.infer<typeof RolloutTokens>;

export const StartEvent = z.object({
  type: z.literal("start"),
  ...at,
  run_id: z.string(),
  rollout_id: z.string(),
  env: z.object({ name: z.string(), hash: z.string(), domain: z.string() }),
  task: z.object({ id: z.string(), prompt: z.string() }),
  policy: z.object({ kind: z.string(), model: z.string().optional(), params: z.record(z.string(), z.unknown()).optional() }),
  sample: z.number().int().nonnegative(),
  seed: z.number().int().optional(),
  sandbox: z.object({ backend: z.string(), image: z.string().optional(), id: z.string().optional() }),
  tools: z
    .array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }))
    .optional()
    .describe("The tools offered to the policy, as it saw them (for chat exports)"),
  forked_from: z
    .object({ rollout_id: z.string(), file: z.string(), turn: z.number().int().nonnegative() })
    .optional()
    .describe("Set when the debugger forked this rollout from another one paused at `turn`; the history before it is in `file`"),
  attempt: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Which try of this rollout this is; set from the second, after tries that ended on an infrastructure failure"),
  previous_attempts: z
    .array(z.object({ file: z.string().describe("Relative to the run folder"), reason: z.string() }))
    .optional()
    .describe(
      "The earlier tries of this rollout that the infrastructure failed (sandbox lost, policy server down), kept apart under attempts/",
    ),
});

export const MessageEvent = z.object({
  type: z.literal("message"),
  ...at,
  role: z.enum(["system", "user", "assistant"]),
  content: z.union([z.string(), z.array(ContentPart)]).nullable(),
  tool_calls: z.array(ChatToolCall).optional(),
  usage: Usage.optional(),
  latency_ms: z.number().nonnegative().optional(),
  turn: z.number().int().nonnegative().optional(),
  tokens: TurnTokens.optional().describe("The turn's tokens (assistant messages of token-capturing policies)"),
});

export const ToolCallEvent = z.object({
  type: z.literal("tool_call"),
  ...at,
  id: z.string(),
  name: z.string(),
  arguments: z.unknown().describe("Parsed arguments, or the raw string when they were not valid JSON"),
  edited: z.boolean().optional().describe("Changed by a person in the debugger before it ran"),
  turn: z.number().int().nonnegative().optional(),
});

export const FileDiff = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  before: z.string().nullable(),
  after: z.string().nullable(),
  binary: z.boolean().optional(),
});
export type FileDiff = z.infer<typeof FileDiff>;

export const Citation = z.object({
  document: z.string(),
  page: z.number().int().optional(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  text: z.string().optional(),
});
export type Citation = z.infer<typeof Citation>;

export const SceneNode = z.object({
  name: z.string(),
  kind: z.string(),
  parent: z.string().nullable(),
  position: z.tuple([z.number(), z.number(), z.number()]).describe("World-space position"),
  rotation: z.tuple([z.number(), z.number(), z.number()]).describe("World-space Euler XYZ, degrees"),
  scale: z.tuple([z.number(), z.number(), z.number()]),
  dimensions: z.tuple([z.number(), z.number(), z.number()]).describe("World-space size of the oriented box"),
  center: z
    .tuple([z.number(), z.number(), z.number()])
    .optional()
    .describe("World-space centre of the oriented box; the position when absent (they differ for off-centre assets)"),
  color: z.string().optional(),
  material: z.record(z.string(), z.unknown()).optional(),
  bbox: z.object({ min: z.tuple([z.number(), z.number(), z.number()]), max: z.tuple([z.number(), z.number(), z.number()]) }),
  asset: z.string().optional(),
});
export type SceneNode = z.infer<typeof SceneNode>;

export const SceneSnapshot = z.object({
  nodes: z.array(SceneNode),
  gltf: z.string().optional().describe("Base64 glTF binary where the backend exports one"),
});
export type SceneSnapshot = z.infer<typeof SceneSnapshot>;

export const Artifacts = z.object({
  diff: z.array(FileDiff).optional(),
  scene: SceneSnapshot.optional(),
  citations: z.array(Citation).optional(),
  images: z.array(z.object({ mime: z.string(), data: z.string().describe("base64") })).optional(),
  cases: z.array(z.record(z.string(), z.unknown())).optional().describe("Per-case results of a stdio run"),
});
export type Artifacts = z.infer<typeof Artifacts>;

export const ObservationEvent = z.object({
  type: z.literal("observation"),
  ...at,
  tool_call_id: z.string(),
  name: z.string(),
  output: z.union([z.string(), z.array(ContentPart)]),
  exit_code: z.number().int().nullable().optional(),
  status: z.enum(["ok", "error", "timeout", "oom", "killed"]).default("ok"),
  duration_ms: z.number().nonnegative(),
  truncated: z.object({ original_chars: z.number().int(), kept_chars: z.number().int() }).optional(),
  error: z.string().optional(),
  artifacts: Artifacts.optional(),
  turn: z.number().int().nonnegative().optional(),
});

export const RewardComponent = z.object({
  name: z.string(),
  type: z.string(),
  weight: z.number(),
  score: z.number().min(0).max(1),
  passed: z.boolean().optional(),
  reason: z.string().optional(),
  error: z.string().optional(),
  skipped: z.string().optional().describe("Why the verifier did not run; never counted as passed"),
  details: z.unknown().optional(),
  duration_ms: z.number().nonnegative().optional(),
});
export type RewardComponent = z.infer<typeof RewardComponent>;

export const RewardEvent = z.object({
  type: z.literal("reward"),
  ...at,
  total: z.number().min(0).max(1),
  components: z.array(RewardComponent),
});

export const ErrorEvent = z.object({
  type: z.literal("error"),
  ...at,
  where: z.enum(["sandbox", "policy", "tool", "verifier", "engine"]),
  message: z.string(),
  infra: z.boolean().default(false).describe("Infrastructure failure (retried) rather than a task failure"),
  stderr: z.string().optional(),
  stack: z.string().optional(),
});

export const RolloutStatus = z.enum(["completed", "truncated", "timeout", "error", "cancelled"]);
export type RolloutStatus = z.infer<typeof RolloutStatus>;

export const EndEvent = z.object({
  type: z.literal("end"),
  ...at,
  status: RolloutStatus,
  reason: z.string().optional(),
  reward: z.number().min(0).max(1).nullable(),
  turns: z.number().int().nonnegative(),
  usage: Usage,
  timings: z.object({
    total_ms: z.number().nonnegative(),
    policy_ms: z.number().nonnegative(),
    sandbox_ms: z.number().nonnegative(),
    verify_ms: z.number().nonnegative(),
  }),
  tokens: RolloutTokens.optional().describe("Set when the policy reported tokens for at least one turn"),
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
