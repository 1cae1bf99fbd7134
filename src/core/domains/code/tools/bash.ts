import { defineTool } from "../../define-tool";
import { codeArgs, positiveNumberArg, stringArg } from "../args";
import { execToolResult } from "../exec-output";
import { changesSinceLastCall } from "../file-changes";

export const bashTool = defineTool({
  name: "bash",
  description:
    "Run a shell command with bash in the sandbox workdir. Returns stdout, stderr and the exit code. There is no network. A command still running at the timeout is killed.",
  args: codeArgs({
    command: stringArg().describe("The command line, run with bash -c in the workdir"),
    timeout: positiveNumberArg().describe("Seconds before the command is killed (at most the step timeout)"),
  }),
  errors: "code",
  async run(args, ctx) {
    const timeoutMs = Math.min(ctx.timeoutMs, args.timeout ? args.timeout * 1000 : ctx.timeoutMs);
    const sandbox = await ctx.sandbox();
    const r = await sandbox.exec(["bash", "-c", args.command], { timeoutMs, signal: ctx.signal });
    const result = execToolResult(r);
    if (r.status === "error") return result;
    // The diff is a courtesy for the viewer: a sandbox that cannot list its changes
    // (say, the command filled the disk) still returns the command's own result.
    const diff = await changesSinceLastCall(ctx, sandbox).catch(() => []);
    return diff.length > 0 ? { ...result, artifacts: { diff } } : result;
  },
});
