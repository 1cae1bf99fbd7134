import type { ExecResult } from "../../model/sandbox";
import type { ToolResult } from "../../model/domain";
import { describeCompileError } from "./compile-error";

/**
 * Text an agent reads for a finished command: stdout, stderr under its own heading, and
 * how it ended. A killed command says why (timeout, out of memory) so the agent can react.
 */
export function formatExec(r: ExecResult): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.endsWith("\n") ? r.stdout.slice(0, -1) : r.stdout);
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.endsWith("\n") ? r.stderr.slice(0, -1) : r.stderr}`);
  if (r.truncated) parts.push(`[output cut: ${r.truncated.originalBytes} bytes in all]`);
  const compile = describeCompileError(`${r.stdout}\n${r.stderr}`);
  if (compile) parts.push(`[${compile}]`);
  parts.push(
    r.status === "ok"
      ? `[exit code ${r.exitCode}]`
      : `[${r.status}: ${r.reason ?? "no reason given"}${r.exitCode !== null ? `, exit code ${r.exitCode}` : ""}]`,
  );
  return parts.join("\n");
}

/** Map a sandbox exec to a tool result; a non-ok status stays visible to the engine. */
export function execToolResult(r: ExecResult): ToolResult {
  const status = r.status === "error" ? "error" : r.status;
  return {
    output: formatExec(r),
    exitCode: r.exitCode,
    status,
    ...(r.status === "error" ? { error: r.reason ?? "the sandbox failed to run the command" } : {}),
  };
}
