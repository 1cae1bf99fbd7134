import type { ToolContext, ToolDefinition, ToolResult } from "../model/domain";
import { abortReason } from "../util/backoff";
import { withDeadline } from "../util/deadline";
import { SandboxInfraError, ToolCrashError } from "./errors";

/** Extra time a tool gets past its step timeout to kill its process and report, before the engine stops waiting. */
export const STEP_GRACE_MS = 2_000;

export interface StepOutcome extends ToolResult {
  durationMs: number;
}

/** Arguments as the policy wrote them: an object, or the reason they are unusable. */
export function parseArguments(raw: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (raw.trim() === "") return { ok: true, value: {} };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    return { ok: false, error: `the arguments are not valid JSON (${(e as Error).message}); send a JSON object` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return { ok: false, error: "the arguments must be a JSON object" };
  return { ok: true, value: v as Record<string, unknown> };
}

/**
 * Run one tool call under the step deadline. Tool failures come back as an error
 * observation the agent can read; only a broken sandbox, a crashed tool program or the
 * rollout's own abort escape as exceptions.
 */
export async function runStep(tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<StepOutcome> {
  const started = performance.now();
  const ac = new AbortController();
  const onParent = () => ac.abort(abortReason(ctx.signal));
  ctx.signal.addEventListener("abort", onParent, { once: true });
  // A rollout aborted before the step began: the race ends at once, and the tool is told to stop too.
  if (ctx.signal.aborted) onParent();
  try {
    // The race ends at once when the rollout is aborted; a timeout is an observation, not an error.
    const r = await withDeadline(tool.run(args, { ...ctx, signal: ac.signal }), ctx.timeoutMs + STEP_GRACE_MS, ctx.signal);
    if (!r.ok && r.why === "aborted") throw abortReason(ctx.signal);
    if (!r.ok) {
      ac.abort(new Error("step timeout"));
      return {
        output: `Error: ${tool.name} did not finish within ${ctx.timeoutMs / 1000} s and was stopped.`,
        status: "timeout",
        error: "step timeout",
        durationMs: performance.now() - started,
      };
    }
    return { ...r.value, durationMs: performance.now() - started };
  } catch (e) {
    if (ctx.signal.aborted || e instanceof SandboxInfraError || e instanceof ToolCrashError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    return { output: `Error: ${msg}`, status: "error", error: msg, durationMs: performance.now() - started };
  } finally {
    ctx.signal.removeEventListener("abort", onParent);
  }
}
