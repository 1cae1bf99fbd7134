import { z } from "zod";
import { COMPARATOR_NAMES } from "./comparators";

/**
 * Verifier configurations, the `reward:` list of a manifest. One discriminated union on
 * `type`; each verifier's implementation lives in `reward/` or its domain folder.
 */
const base = {
  name: z.string().optional().describe("Name shown in the reward breakdown; defaults to the type"),
  weight: z.number().nonnegative().default(1),
  timeout: z.number().positive().optional().describe("Seconds before the verifier is stopped and scores 0 with an error"),
};

export const StdioCase = z.strictObject({
  stdin: z.string().default(""),
  stdout: z.string(),
  timeout: z.number().positive().optional(),
});
export type StdioCase = z.infer<typeof StdioCase>;

export const TestsVerifier = z.strictObject({
  type: z.literal("tests"),
  ...base,
  command: z.string().optional().describe("Command run in the sandbox after the hidden test files are copied in"),
  format: z.enum(["pytest", "junit", "tap", "stdio", "exit-code"]).default("exit-code"),
  report: z.string().optional().describe("Path of the JUnit XML report the command writes (format: junit or pytest)"),
  program: z.string().optional().describe("stdio: the command that runs the submitted program, e.g. 'python3 solution.py'"),
  mode: z.enum(["fraction", "all"]).default("fraction").describe("fraction of tests passed, or 1 only when all pass"),
  sentinel: z
    .boolean()
    .optional()
    .describe(
      "Pass a random per-run token on the command's stdin; the tests count only when the command prints it as a line of stdout " +
        "once they have run, so submitted code that exits early with status 0 (os._exit(0), sys.exit(0) at import) scores 0",
    ),
});

export const ExactVerifier = z.strictObject({
  type: z.literal("exact"),
  ...base,
  field: z.string().optional().describe("Dotted path into the submitted answer; the whole answer when absent"),
  normalize: z.enum(["none", "whitespace", "lower", "text"]).default("whitespace"),
});

export const NumericVerifier = z.strictObject({
  type: z.literal("numeric"),
  ...base,
  field: z.string().optional(),
  rel_tol: z.number().nonnegative().default(1e-6),
  abs_tol: z.number().nonnegative().default(0),
});

export const FieldSpec = z.strictObject({
  comparator: z
    .enum(COMPARATOR_NAMES)
    .default("text")
    .describe("auto: the task's target picks (target.grading.<field>.comparator), else the gold value's form does"),
  weight: z.number().nonnegative().default(1),
  rel_tol: z.number().nonnegative().optional(),
  abs_tol: z.number().nonnegative().optional(),
  threshold: z.number().min(0).max(1).optional().describe("entities: the F1 needed to count as passed"),
  rubric: z.array(z.string()).optional().describe("judge: rubric items"),
  cite: z.boolean().optional().describe("Require a citation whose page contains the value"),
  rounding: z
    .enum(["gold", "none"])
    .optional()
    .describe(
      "Figures: gold (default) also accepts what a reviewer accepts as a rounding (see 'How a figure answer is read'; never 1 % off); none: only rel_tol/abs_tol",
    ),
});

export const FieldsVerifier = z.strictObject({
  type: z.literal("fields"),
  ...base,
  fields: z.record(z.string(), FieldSpec).describe("Per-field comparators keyed by dotted path into the answer"),
  mode: z.enum(["fraction", "all"]).default("fraction"),
});

export const ScriptVerifier = z.strictObject({
  type: z.literal("script"),
  ...base,
  command: z.string().describe("Command run in the sandbox; prints a JSON object {score, reason?} or a number"),
});

export const JudgeVerifier = z.strictObject({
  type: z.literal("judge"),
  ...base,
  rubric: z.array(z.string()).min(1),
  field: z.string().optional(),
  model: z.string().optional(),
  base_url: z.string().optional(),
});

export const SceneVerifier = z.strictObject({
  type: z.literal("scene"),
  ...base,
  checks: z.array(z.record(z.string(), z.unknown())).optional().describe("Checks; tasks may add their own in target.checks"),
  mode: z
    .enum(["fraction", "all"])
    .optional()
    .describe("weighted fraction of checks passed (default), or 1 only when all pass (a scene half right is not rewarded)"),
});

export const HarborVerifier = z.strictObject({
  type: z.literal("harbor"),
  ...base,
  env: z.record(z.string(), z.string()).optional().describe("Environment of tests/test.sh ([verifier].env of task.toml)"),
});

export const VerifierConfig = z.discriminatedUnion("type", [
  TestsVerifier,
  ExactVerifier,
  NumericVerifier,
  FieldsVerifier,
  ScriptVerifier,
  JudgeVerifier,
  SceneVerifier,
  HarborVerifier,
]);
export type VerifierConfig = z.infer<typeof VerifierConfig>;
export type VerifierType = VerifierConfig["type"];
