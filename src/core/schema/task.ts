import { z } from "zod";
import { FileMap, Slug } from "./common";
import { StdioCase, VerifierConfig } from "./verifier";

export const ToolCallSpec = z.strictObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type ToolCallSpec = z.infer<typeof ToolCallSpec>;

/** The reference solution the oracle plays. */
export const Solution = z.strictObject({
  files: FileMap.optional().describe("Files written before submitting"),
  patch: z.string().optional().describe("A unified diff applied in the workdir"),
  commands: z.array(z.string()).optional().describe("Shell commands run in order"),
  tool_calls: z.array(ToolCallSpec).optional().describe("Tool calls made in order"),
  answer: z.unknown().optional().describe("The answer submitted at the end"),
});
export type Solution = z.infer<typeof Solution>;

/** Hidden tests: copied in only after the agent submits. */
export const HiddenTests = z.strictObject({
  files: FileMap.optional(),
  command: z.string().optional().describe("Overrides the verifier's command for this task"),
  cases: z.array(StdioCase).optional().describe("stdin/stdout cases for the stdio format"),
});

export const Task = z.strictObject({
  id: Slug,
  prompt: z.string().min(1),
  files: FileMap.optional().describe("Seed files written into the workdir at reset"),
  visible_tests: FileMap.optional().describe("Tests the agent may run with run_tests"),
  tests: HiddenTests.optional(),
  target: z.unknown().optional().describe("Domain-specific hidden target: gold answer fields, scene checks"),
  solution: Solution.optional(),
  max_turns: z.number().int().positive().optional(),
  reward: z
    .array(VerifierConfig)
    .optional()
    .describe(
      "This task's own reward components: one named like a manifest component (its name, else its type) replaces it, any other is added",
    ),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof Task>;
