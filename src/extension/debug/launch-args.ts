import { z } from "zod";

/**
 * A `launch.json` configuration of type `rlenv` (and what `rlenv.debugTask` generates).
 * package.json's `contributes.debuggers[].configurationAttributes` describes the same fields.
 */
export const LaunchArgs = z.object({
  type: z.literal("rlenv").optional(),
  request: z.literal("launch").optional(),
  name: z.string().optional(),
  /** The environment folder or its environment.yaml. */
  environment: z.string().min(1, "set 'environment' to the environment folder (or its environment.yaml)"),
  task: z.string().min(1, "set 'task' to a task id of the environment"),
  /** oracle | nop | human | model (the configured OpenAI-compatible policy) | replay:FILE */
  policy: z
    .string()
    .regex(/^(oracle|nop|human|model|replay:.+)$/, "policy must be oracle, nop, human, model (the rlenv.policy.* settings) or replay:FILE")
    .default("model"),
  /** Overrides of the configured model for this session. */
  model: z.string().optional(),
  baseUrl: z.string().url().optional(),
  sample: z.number().int().nonnegative().default(0),
  seed: z.number().int().optional(),
  sandbox: z.enum(["auto", "docker", "process"]).optional(),
  stopOnEntry: z.boolean().default(false),
  pauseBeforePolicy: z.boolean().default(false),
  /** Pause once scored, before the sandbox closes. */
  pauseAtEnd: z.boolean().default(true),
  /** Set by the Fork command on a child session: the prepared fork to debug (the other fields only label it). */
  forkId: z.string().min(1).optional(),
});
export type LaunchArgs = z.infer<typeof LaunchArgs>;

/** Custom DAP requests (the commands and the tests send them through `session.customRequest`). */
export const EditPendingCallArgs = z.object({ arguments: z.record(z.string(), z.unknown()), name: z.string().min(1).optional() });
export const ForkArgs = z.object({
  policy: z.string().regex(/^(oracle|nop|human|model)$/, "fork policy must be oracle, nop, human or model"),
  /** `session`: a child debug session stopped on entry; `run`: run the fork to its end inside the request and answer its result. */
  mode: z.enum(["session", "run"]).default("session"),
});

/** The first problem of a zod error, as one line for the user. */
export function firstIssue(e: z.ZodError): string {
  const i = e.issues[0];
  return i ? `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}` : e.message;
}
