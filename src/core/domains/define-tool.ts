import { z } from "zod";
import type { Artifacts } from "../schema/trajectory";
import { ToolError } from "../model/errors";
import type { ToolContext, ToolDefinition, ToolResult } from "../model/domain";

/**
 * How a domain words a tool error for the model. Each domain keeps the form its tools
 * have always had, so that prompts and recorded trajectories stay comparable across
 * versions: code and scene prefix "error: ", document does not; document and scene
 * record exit code 1, code records none (its exit codes are the shell's). Bad arguments
 * are the first problem found (code, document: each field's message is written for the
 * model) or every problem with its field path (scene: zod's own messages).
 */
interface ErrorStyle {
  prefix: string;
  exitCode?: number;
  argumentProblems(issues: readonly z.core.$ZodIssue[]): string;
}

const firstProblem = (issues: readonly z.core.$ZodIssue[]): string => issues[0]?.message ?? "invalid arguments";

const ERROR_STYLES = {
  code: { prefix: "error: ", argumentProblems: firstProblem },
  document: { prefix: "", exitCode: 1, argumentProblems: firstProblem },
  scene3d: {
    prefix: "error: ",
    exitCode: 1,
    argumentProblems: (issues) =>
      `invalid arguments: ${issues.map((i) => `${i.path.length ? i.path.join(".") : "arguments"}: ${i.message}`).join("; ")}`,
  },
} satisfies Record<string, ErrorStyle>;

export type ToolErrorStyle = keyof typeof ERROR_STYLES;

/** The observation for a tool error, in the domain's form: the one place that shape is written. */
export function toolErrorResult(style: ToolErrorStyle, message: string, artifacts?: Artifacts): ToolResult {
  const s: ErrorStyle = ERROR_STYLES[style];
  return {
    output: `${s.prefix}${message}`,
    status: "error",
    error: message,
    ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
    ...(artifacts ? { artifacts } : {}),
  };
}

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  /** The arguments: parsed before `run`; the JSON Schema the model sees is generated from it. */
  args: S;
  /** Which domain's wording tool errors take (see ERROR_STYLES). */
  errors: ToolErrorStyle;
  /**
   * The JSON Schema shown instead of the generated one, for a tool whose arguments are data
   * rather than code (a report schema the environment's tasks declare).
   */
  parameters?: Record<string, unknown>;
  /**
   * Called before any argument is read (to start the rollout's scene, say), so that a
   * failure there comes first, as it would in a hand-written tool.
   */
  prepare?(ctx: ToolContext): Promise<void>;
  /** Artifacts to attach to every error observation (the scene as it is after the failed call). */
  errorArtifacts?(ctx: ToolContext): Promise<Artifacts>;
  /** The call itself; throws ToolError for a mistake the agent can fix. */
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool from its zod argument schema and its run function. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolDefinition {
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters ?? jsonSchemaOf(spec.args),
    async run(raw, ctx) {
      const fail = async (message: string) => toolErrorResult(spec.errors, message, await spec.errorArtifacts?.(ctx));
      await spec.prepare?.(ctx);
      const parsed = spec.args.safeParse(raw);
      if (!parsed.success) return fail(ERROR_STYLES[spec.errors].argumentProblems(parsed.error.issues));
      try {
        return await spec.run(parsed.data, ctx);
      } catch (e) {
        if (e instanceof ToolError) return fail(e.message);
        throw e;
      }
    },
  };
}

/**
 * The JSON Schema of a tool's arguments as the model sees it: zod's, without the $schema
 * key and without what says nothing about the tool: the bounds zod adds to every integer
 * (the safe-integer range) and `additionalProperties: {}` (any extra key, the default).
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return withoutDefaults(rest) as Record<string, unknown>;
}

function withoutDefaults(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDefaults);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    if (k === "additionalProperties" && v && typeof v === "object" && Object.keys(v).length === 0) continue;
    out[k] = withoutDefaults(v);
  }
  return out;
}
