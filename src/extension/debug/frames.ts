import { Source, StackFrame } from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type { RolloutDebugger } from "../../core/debug/controller";
import type { ReadableRollout } from "../../core/debug/readable";
import type { LaunchedRollout } from "./adapter";
import { preview, type VariableStore } from "./variables";

/** Stack frame ids: the pending point on top, turns below, the task last. */
const FRAME_NOW = 1;
const FRAME_TASK = 2;
const frameOfTurn = (i: number) => 100 + i;

/**
 * The rollout as a call stack: where it is paused on top, the turns below (newest first), its
 * task at the bottom. The turns' source is the rollout as a person reads it (`readable`,
 * served under `sourceRef`): each frame's line is its turn's heading there, and the top
 * frame's the pending call (or the observation just read, or the reward).
 */
export function stackFrames(r: LaunchedRollout, readable: ReadableRollout, sourceRef: number): StackFrame[] {
  const d = r.debugger;
  const traj = new Source(`rollout ${r.task.id}`, undefined, sourceRef, undefined, { trajectory: d.file });
  const frames: StackFrame[] = [];
  const p = d.pauseInfo;
  if (p) {
    const pending = d.pending;
    const name = pending
      ? `turn ${p.turn}: ${pending.name}(${preview(pending.arguments)})`
      : p.point === "end"
        ? `end: ${p.description}`
        : `turn ${p.turn}: ${p.point === "policy" ? "before the policy call" : p.description}`;
    frames.push(new StackFrame(FRAME_NOW, name, traj, readable.nowLine, 1));
  }
  for (let i = d.turns.length - 1; i >= 0; i--) {
    const t = d.turns[i];
    // The top frame already stands for the turn paused in (before or after one of its calls).
    if (!t || (p && (p.point === "tool" || p.point === "observation") && t.turn === p.turn)) continue;
    const calls = t.calls.map((c) => c.name).join(", ") || "reply";
    frames.push(new StackFrame(frameOfTurn(i), `turn ${t.turn}: ${calls}`, traj, readable.turnLines.get(t.turn) ?? 1, 1));
  }
  frames.push(
    new StackFrame(
      FRAME_TASK,
      `task ${r.task.id}`,
      new Source(r.task.source.file.split(/[\\/]/).pop() ?? "task", r.task.source.file),
      r.task.source.line,
      1,
    ),
  );
  return frames;
}

/**
 * The scopes of a frame: the turn's (for a turn frame), the pending call (editable), the last
 * observation, the messages, the reward once scored, and the sandbox (filled on expand).
 */
export function rolloutScopes(
  d: RolloutDebugger,
  vars: VariableStore,
  frameId: number,
): { scopes: DebugProtocol.Scope[]; sandboxRef: number } {
  const turn = frameId >= 100 ? d.turns[frameId - 100] : undefined;
  const scopes: DebugProtocol.Scope[] = [];
  if (turn) {
    scopes.push({
      name: `Turn ${turn.turn}`,
      variablesReference: vars.ref({
        content: turn.content,
        calls: turn.calls.map((c) => ({ name: c.name, arguments: c.arguments, ...(c.edited ? { edited: true } : {}) })),
        observations: turn.observations.map((o) => ({
          name: o.name,
          status: o.status,
          exit_code: o.exit_code,
          output: textOf(o.output),
        })),
      }),
      expensive: false,
    });
  }
  const pending = d.pending;
  if (pending) {
    const pendingRef = vars.ref({ id: pending.id, name: pending.name, arguments: pending.arguments }, [], true);
    scopes.push({ name: "Pending tool call", variablesReference: pendingRef, expensive: false });
  }
  const obs = d.lastObservation;
  scopes.push({
    name: "Last observation",
    variablesReference: obs
      ? vars.ref({
          tool: obs.name,
          status: obs.status,
          exit_code: obs.exit_code ?? null,
          output: textOf(obs.output),
          ...(obs.error ? { error: obs.error } : {}),
        })
      : 0,
    expensive: false,
  });
  scopes.push({ name: "Messages", variablesReference: vars.ref(d.messages.map((m) => ({ ...m }))), expensive: false });
  if (d.reward)
    scopes.push({
      name: "Reward",
      variablesReference: vars.ref({
        total: d.reward.total,
        components: Object.fromEntries(
          d.reward.components.map((c) => [
            c.name,
            { score: c.score, weight: c.weight, ...(c.reason ? { reason: c.reason } : {}), ...(c.error ? { error: c.error } : {}) },
          ]),
        ),
      }),
      expensive: false,
    });
  const sandboxRef = vars.ref({});
  scopes.push({ name: "Sandbox", variablesReference: sandboxRef, expensive: true });
  return { scopes, sandboxRef };
}

/** A tool's output as text: its text parts, other parts by their type. */
export function textOf(output: string | Array<{ type: string; text?: string }>): string {
  return typeof output === "string" ? output : output.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`)).join("");
}
