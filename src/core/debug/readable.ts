import type { TrajectoryEvent } from "../schema/trajectory";

/** Where the debugger is paused, as the readable view needs it (a subset of the controller's PauseInfo). */
export interface ReadablePause {
  point: "policy" | "tool" | "observation" | "end";
  turn: number;
  description: string;
}

export interface ReadableInput {
  taskId: string;
  events: readonly TrajectoryEvent[];
  pause?: ReadablePause | undefined;
  /** The call the rollout is paused before (it may not be in `events` yet). */
  pending?: { id: string; name: string; arguments: unknown } | undefined;
}

/** The rollout as a person reads it, and where each frame of the call stack points in it (1-based lines). */
export interface ReadableRollout {
  text: string;
  /** The line of each turn's heading, by turn number. */
  turnLines: Map<number, number>;
  /** The line the rollout is paused at (the pending call, the observation just read, the reward), or the last line. */
  nowLine: number;
}

/** Lines of a tool's output or a message shown before the rest is summarised ("… N more lines"). */
export const MAX_BLOCK_LINES = 60;
/** Characters of one shown line before it is cut. */
export const MAX_LINE_CHARS = 400;

const RULE = "─".repeat(48);

/** Text of message content or tool output: its text parts, other parts by their type. */
function textOf(c: string | null | ReadonlyArray<{ type: string; text?: string }>): string {
  if (c === null) return "";
  return typeof c === "string" ? c : c.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`)).join("");
}

/** Arguments pretty-printed: JSON objects indented; a raw string (arguments that were not JSON) as it is. */
function argumentsText(args: unknown): string {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2) ?? String(args);
}

/** A block of text indented under its heading, long blocks and lines cut with a note of what was left out. */
function block(text: string, indent = "    "): string[] {
  if (text === "") return [`${indent}(empty)`];
  const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, MAX_BLOCK_LINES).map((l) => {
    const cut = l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)} … (+${l.length - MAX_LINE_CHARS} characters)` : l;
    return `${indent}${cut}`;
  });
  if (lines.length > MAX_BLOCK_LINES) shown.push(`${indent}… (${lines.length - MAX_BLOCK_LINES} more lines)`);
  return shown;
}

/**
 * The rollout so far as the debugger's source: the prompt, then each turn with the
 * assistant's text, each tool call's name and pretty-printed arguments, each observation
 * (status, exit code, output), and the reward; the call the rollout is paused before is
 * marked, and `nowLine` is its line, so the editor's current-line marker sits on it
 * rather than on a raw JSON line.
 */
export function readableRollout(input: ReadableInput): ReadableRollout {
  const out: string[] = [];
  const turnLines = new Map<number, number>();
  const callLines = new Map<string, number>();
  let obsLine = 0;
  let rewardLine = 0;
  const push = (...l: string[]) => out.push(...l);
  push(`Rollout of task ${input.taskId}${input.pause ? ` · paused: ${input.pause.description}` : ""}`, "");
  for (const e of input.events) {
    switch (e.type) {
      case "start":
        push(`${RULE}`, `Prompt · policy ${e.policy.kind}${e.policy.model ? ` (${e.policy.model})` : ""}`, "");
        break;
      case "message":
        if (e.role === "assistant") {
          if (e.turn !== undefined && !turnLines.has(e.turn)) {
            push(RULE);
            turnLines.set(e.turn, out.length + 1);
            push(`Turn ${e.turn}`, "");
          }
          push("assistant:", ...block(textOf(e.content) || "(no text)"), "");
        } else push(`${e.role}:`, ...block(textOf(e.content)), "");
        break;
      case "tool_call":
        callLines.set(e.id, out.length + 1);
        push(`▶ call ${e.name}${e.edited ? " (edited in the debugger)" : ""}`, ...block(argumentsText(e.arguments)), "");
        break;
      case "observation":
        obsLine = out.length + 1;
        push(
          `◀ ${e.name} · ${e.status}${e.exit_code !== undefined && e.exit_code !== null ? ` · exit ${e.exit_code}` : ""} · ${Math.round(e.duration_ms)} ms`,
          ...block(textOf(e.output)),
          ...(e.error ? [`    error: ${e.error}`] : []),
          "",
        );
        break;
      case "reward":
        push(RULE);
        rewardLine = out.length + 1;
        push(`Reward ${e.total.toFixed(2)}`);
        for (const c of e.components)
          push(
            `    ${c.name} (${c.type}, weight ${c.weight}): ${c.score.toFixed(2)}${c.reason ? ` — ${c.reason}` : ""}${c.error ? ` — ${c.error}` : ""}`,
          );
        push("");
        break;
      case "error":
        push(`✗ error in ${e.where}: ${e.message}`, "");
        break;
      case "end":
        push(`End: ${e.status}${e.reason ? ` (${e.reason})` : ""} after ${e.turns} turns`, "");
        break;
    }
  }
  const pending = input.pending;
  let nowLine = out.length;
  if (pending) {
    const at = callLines.get(pending.id);
    if (at !== undefined) {
      out[at - 1] = `▶ call ${pending.name}    ◀── paused here, before the call runs`;
      nowLine = at;
    } else {
      nowLine = out.length + 1;
      push(`▶ call ${pending.name}    ◀── paused here, before the call runs`, ...block(argumentsText(pending.arguments)), "");
    }
  } else if (input.pause?.point === "observation" && obsLine) nowLine = obsLine;
  else if (input.pause?.point === "end" && rewardLine) nowLine = rewardLine;
  else if (input.pause?.point === "policy") {
    nowLine = out.length + 1;
    push(`… turn ${input.pause.turn}: waiting to ask the policy    ◀── paused here`);
  }
  return { text: `${out.join("\n")}\n`, turnLines, nowLine: Math.max(1, nowLine) };
}
