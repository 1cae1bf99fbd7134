import type { ToolContext, ToolResult } from "../model/domain";
import type { ChatToolCall, TrajectoryEvent, TrajectoryEventInput } from "../schema/trajectory";
import type { RolloutScope } from "./rollout-scope";
import type { EpisodeHooks, ObservationEvent, PendingToolCall } from "./rollout-types";
import { parseArguments, runStep, type StepOutcome } from "./step";
import type { Toolset } from "./toolset";
import { truncateOutput } from "./truncate";

/** What one tool call needs of its episode. */
export interface ToolCallPlace {
  toolset: Toolset;
  toolCtx: ToolContext;
  scope: RolloutScope;
  outputLimit: number;
  hooks: EpisodeHooks | undefined;
  emit(e: TrajectoryEventInput): TrajectoryEvent;
  /** The agent submitted earlier in this message: the call is answered, not run. */
  afterSubmit: boolean;
  /** Counts the call's sandbox time beyond what the scope counted (a start or close), as soon as it is known. */
  sandboxTime(ms: number): void;
}

/** One tool call as played: its observation event and the text the agent reads, the call as run (edited or not), a submit. */
export interface PlayedCall {
  observation: ObservationEvent;
  /** The observation's output as the agent reads it (cut to the tool output limit). */
  text: ReturnType<typeof truncateOutput>["output"];
  /** The call as it ran (the debugger may have edited it); absent for a call not run after a submit. */
  pending?: PendingToolCall;
  submit?: ToolResult["submit"];
}

/** The event just written, as the observation it is. */
function asObservation(e: TrajectoryEvent): ObservationEvent {
  if (e.type !== "observation") throw new Error(`an observation was written as ${e.type}`);
  return e;
}

/** One tool call: the debugger's edit, the step under its deadline, the tool_call and observation events. */
export async function runToolCall(p: ToolCallPlace, call: ChatToolCall, turn: number): Promise<PlayedCall> {
  if (p.afterSubmit) return notRun(p, call, turn);
  const parsed = parseArguments(call.arguments);
  let pending: PendingToolCall = { id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments };
  let edited = false;
  if (p.hooks?.beforeToolCall) {
    const next = await p.hooks.beforeToolCall(pending, p.scope.sandbox);
    edited = JSON.stringify(next) !== JSON.stringify(pending);
    pending = next;
    p.toolCtx.signal.throwIfAborted();
  }
  p.emit({
    type: "tool_call",
    id: pending.id,
    name: pending.name,
    arguments: pending.arguments,
    ...(edited ? { edited: true } : {}),
    turn,
  });
  const tool = p.toolset.byName.get(pending.name);
  let out: StepOutcome;
  if (!tool) {
    const msg = `unknown tool '${pending.name}'; the tools are: ${[...p.toolset.byName.keys()].join(", ")}`;
    out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
  } else if (typeof pending.arguments !== "object" || pending.arguments === null || Array.isArray(pending.arguments)) {
    const msg = edited || parsed.ok ? "the arguments must be a JSON object" : parsed.error;
    out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
  } else {
    const a0 = p.scope.sandboxMs;
    out = await runStep(tool, pending.arguments as Record<string, unknown>, p.toolCtx);
    p.sandboxTime(out.durationMs - (p.scope.sandboxMs - a0));
    // A step that timed out or failed: the agent's command, or a sandbox that stopped answering?
    if (out.status !== undefined && out.status !== "ok") await p.scope.lost();
    if (p.scope.guard.lost) throw p.scope.guard.error();
  }
  const t = truncateOutput(out.output, p.outputLimit);
  const observation = asObservation(
    p.emit({
      type: "observation",
      tool_call_id: pending.id,
      name: pending.name,
      output: t.output,
      ...(out.exitCode !== undefined ? { exit_code: out.exitCode } : {}),
      status: out.status ?? (out.error ? "error" : "ok"),
      duration_ms: out.durationMs,
      ...(t.truncated ? { truncated: t.truncated } : {}),
      ...(out.error ? { error: out.error } : {}),
      ...(out.artifacts ? { artifacts: out.artifacts } : {}),
      turn,
    }),
  );
  return { observation, text: t.output, pending, ...(out.submit ? { submit: out.submit } : {}) };
}

/** A call after submit in the same message: recorded, answered with an error, never run. */
function notRun(p: ToolCallPlace, call: ChatToolCall, turn: number): PlayedCall {
  const text = "Not run: the task was already submitted earlier in this message.";
  const parsed = parseArguments(call.arguments);
  p.emit({ type: "tool_call", id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments, turn });
  const observation = asObservation(
    p.emit({
      type: "observation",
      tool_call_id: call.id,
      name: call.name,
      output: text,
      status: "error",
      error: "after submit",
      duration_ms: 0,
      turn,
    }),
  );
  return { observation, text };
}
