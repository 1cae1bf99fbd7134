import { z } from "zod";
import { JsonSchemaObject } from "./common";

/** A tool defined by the environment: a command run in the sandbox with the arguments as JSON on stdin. */
export const CustomTool = z.strictObject({
  name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, "tool names are letters, digits, '_' or '-' (at most 64)"),
  description: z.string().min(1),
  parameters: JsonSchemaObject.default({ type: "object", properties: {} }),
  command: z.string().min(1).describe("Run in the sandbox workdir; arguments arrive as JSON on stdin"),
  timeout: z.number().positive().optional().describe("Seconds; defaults to the step timeout"),
});
export type CustomTool = z.infer<typeof CustomTool>;

/** A built-in tool by name, or a custom tool. */
export const ToolEntry = z.union([z.string().min(1), CustomTool]);
export type ToolEntry = z.infer<typeof ToolEntry>;
