import type { ToolDefinition } from "../../types";
import { numberArg, stringArg, toolError } from "../args";
import { execToolResult } from "../exec-output";
import { changesSinceLastCall } from "../file-changes";

export const bashTool: ToolDefinition = {
  name: "bash",
  description:
    "Run a shell command with bash in the sandbox workdir. Returns stdout, stderr and the exit code. There is no network. A command still running at the timeout is killed.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "The command line, run with bash -c in the workdir" },
      timeout: { type: "number", description: "Seconds before the command is killed (at most the step timeout)" },
    },
    required: ["command"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const command = stringArg(args, "command");
    if (!command.ok) return toolError(command.message);
    const timeout = numberArg(args, "timeout");
    if (!timeout.ok) return toolError(timeout.message);
    const timeoutMs = Math.min(ctx.timeoutMs, timeout.value ? timeout.value * 1000 : ctx.timeoutMs);
    const sandbox = await ctx.sandbox();
    const r = await sandbox.exec(["bash", "-c", command.value ?? ""], { timeoutMs, signal: ctx.signal });
    const result = execToolResult(r);
    if (r.status === "error") return result;
    // The diff is a courtesy for the viewer: a sandbox that cannot list its changes
    // (say, the command filled the disk) still returns the command's own result.
    const diff = await changesSinceLastCall(ctx, sandbox).catch(() => []);
    return diff.length > 0 ? { ...result, artifacts: { diff } } : result;
  },
};
