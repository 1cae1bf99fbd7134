import { z } from "zod";

/**
 * The "Play Task" panel's messages (a person plays the agent). Parsed by the extension host
 * and by the webview: nothing crosses unchecked. The host always sends the whole state
 * (a snapshot), never a delta, so a reloaded panel shows the same thing.
 */

/** One entry of the conversation as the player sees it; tool output is untrusted text. */
export const PlayMessage = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  text: z.string(),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.string() })).optional(),
  /** The tool whose output this is (role tool). */
  tool: z.string().optional(),
});
export type PlayMessage = z.infer<typeof PlayMessage>;

export const PlayTool = z.object({
  name: z.string(),
  description: z.string(),
  /** The tool's JSON Schema for its arguments; the form is generated from it. */
  parameters: z.record(z.string(), z.unknown()),
});
export type PlayTool = z.infer<typeof PlayTool>;

export const PlayPhase = z.enum(["starting", "your-turn", "running", "finished", "failed"]);
export type PlayPhase = z.infer<typeof PlayPhase>;

export const PlayState = z.object({
  title: z.string(),
  phase: PlayPhase,
  /** The turn waiting for a move (0-based), and the environment's limit. */
  turn: z.number().int().nonnegative(),
  maxTurns: z.number().int().positive(),
  messages: z.array(PlayMessage),
  tools: z.array(PlayTool),
  /** Why the last move was refused, or what went wrong. */
  notice: z.string().optional(),
  result: z.object({ status: z.string(), reward: z.number().nullable(), reason: z.string().optional(), file: z.string() }).optional(),
});
export type PlayState = z.infer<typeof PlayState>;

export const PlayAction = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("tool"),
    name: z.string().min(1),
    /** An object from the form, or the raw JSON text from the fallback editor. */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
    content: z.string().optional(),
  }),
  z.object({ kind: z.literal("message"), content: z.string() }),
]);
export type PlayAction = z.infer<typeof PlayAction>;

export const PlayFromApp = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ready") }),
  z.object({ kind: z.literal("move"), action: PlayAction }),
  z.object({ kind: z.literal("stop") }),
  z.object({ kind: z.literal("openTrajectory") }),
]);
export type PlayFromApp = z.infer<typeof PlayFromApp>;

export const PlayFromHost = z.discriminatedUnion("kind", [z.object({ kind: z.literal("state"), state: PlayState })]);
export type PlayFromHost = z.infer<typeof PlayFromHost>;
