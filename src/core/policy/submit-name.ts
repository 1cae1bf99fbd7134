import type { ToolSpec } from "./types";

/** The tool that ends a rollout in this tool set: the document domain's `submit_report`, else `submit`. */
export function submitToolName(tools: readonly ToolSpec[]): string {
  return tools.some((t) => t.name === "submit_report") ? "submit_report" : "submit";
}

/** Arguments for the submit tool carrying `answer`: submit_report takes the answer object itself. */
export function submitArguments(tool: string, answer: unknown): Record<string, unknown> {
  if (answer === undefined) return {};
  if (tool === "submit_report" && answer !== null && typeof answer === "object" && !Array.isArray(answer))
    return answer as Record<string, unknown>;
  return { answer };
}
