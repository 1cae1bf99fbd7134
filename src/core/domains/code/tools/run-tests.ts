import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import { codeArgs } from "../args";
import { describeCompileError } from "../compile-error";
import { execToolResult } from "../exec-output";
import { writeWorkdirFiles } from "../sandbox-files";
import { formatStdioResults, runStdioCases } from "../stdio-cases";
import { planVisibleTests } from "../visible-tests";
import { markExecutable } from "../../../sandbox/task-files";

export const runTestsTool = defineTool({
  name: "run_tests",
  description:
    "Run this task's visible tests against the current files and show the results. The hidden tests that decide the reward are different and run after submit.",
  args: codeArgs({}),
  errors: "code",
  async run(_args, ctx) {
    const plan = planVisibleTests(ctx.env, ctx.task);
    if (plan.kind === "none") throw new ToolError(plan.message);
    const sandbox = await ctx.sandbox();
    // Written again on every run: an agent that edited the visible tests still runs the real ones.
    await writeWorkdirFiles(sandbox, plan.files, ctx.timeoutMs, ctx.signal, true);
    await markExecutable(sandbox, ctx.task.visible_tests);
    if (plan.kind === "stdio") {
      const results = await runStdioCases(sandbox, plan.program, plan.cases, { signal: ctx.signal });
      const failed = results.filter((r) => !r.passed).length;
      const compile = results.map((r) => describeCompileError(r.stderr)).find((c) => c !== null);
      return {
        output: compile ? `[${compile}]\n${formatStdioResults(results)}` : formatStdioResults(results),
        exitCode: failed === 0 ? 0 : 1,
        artifacts: { cases: results.map((r) => ({ ...r })) },
      };
    }
    const r = await sandbox.exec(["bash", "-c", plan.command], { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    return execToolResult(r);
  },
});
