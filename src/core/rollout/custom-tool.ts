import type { ToolDefinition } from "../model/domain";
import type { CustomTool } from "../schema/tool";

/** A manifest-defined tool: its command runs in the sandbox workdir with the arguments as JSON on stdin. */
export function customToolDefinition(tool: CustomTool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    async run(args, ctx) {
      const sb = await ctx.sandbox();
      const timeoutMs = tool.timeout !== undefined ? Math.min(tool.timeout * 1000, ctx.timeoutMs) : ctx.timeoutMs;
      const r = await sb.exec(tool.command, { stdin: JSON.stringify(args), timeoutMs, signal: ctx.signal });
      const output = r.stderr ? `${r.stdout}${r.stdout && !r.stdout.endsWith("\n") ? "\n" : ""}[stderr]\n${r.stderr}` : r.stdout;
      const status = r.status === "ok" ? "ok" : r.status === "error" ? "error" : r.status;
      return {
        output: output || (r.exitCode === 0 ? "(no output)" : `(no output, exit code ${r.exitCode})`),
        exitCode: r.exitCode,
        status,
        ...(r.status !== "ok" ? { error: r.reason ?? `the command ended with status ${r.status}` } : {}),
      };
    },
  };
}
