import type { TrajectoryEvent } from "../../schema/trajectory";
import type { RowKind, RowSummary, StepEntry } from "../protocol/trajectory";

const PREVIEW_CHARS = 160;
const STATUS_RANK = new Map<string, number>([
  ["ok", 0],
  ["error", 2],
  ["timeout", 3],
  ["oom", 3],
  ["killed", 3],
]);

/** Flattens message content (a string or parts) to text; images become a placeholder. */
export function contentText(content: string | Array<{ type: string; text?: string }> | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? (p.text ?? "") : "[image]")).join("\n");
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}

/** The timeline line for one row, from its parsed entries. */
export function summariseRow(index: number, kind: RowKind, entries: StepEntry[]): RowSummary {
  const events: TrajectoryEvent[] = entries.flatMap((e) => ("event" in e ? [e.event] : []));
  const s: RowSummary = {
    index,
    kind,
    turn: null,
    title: kind,
    preview: "",
    tools: [],
    status: null,
    tokens: null,
    latency_ms: null,
    duration_ms: null,
    t: events[0]?.t ?? null,
    has: { diff: false, scene: false, citations: false, images: false },
  };
  let worst = -1;
  let duration = 0;
  for (const e of events) {
    switch (e.type) {
      case "start":
        s.title = `Task ${e.task.id}`;
        s.preview ||= preview(e.task.prompt);
        break;
      case "message":
        if (e.turn !== undefined) s.turn = e.turn;
        if (e.role === "assistant") {
          s.title = s.turn !== null ? `Turn ${s.turn}` : "Assistant";
          s.preview = preview(contentText(e.content)) || s.preview;
          if (e.usage) s.tokens = (s.tokens ?? 0) + e.usage.prompt_tokens + e.usage.completion_tokens;
          if (e.latency_ms !== undefined) s.latency_ms = (s.latency_ms ?? 0) + e.latency_ms;
        } else if (!s.preview) s.preview = preview(contentText(e.content));
        break;
      case "tool_call":
        s.tools.push(e.name);
        if (e.turn !== undefined && s.turn === null) s.turn = e.turn;
        break;
      case "observation": {
        duration += e.duration_ms;
        const rank = STATUS_RANK.get(e.status) ?? 1;
        const code = e.exit_code ?? 0;
        const effective = rank === 0 && code !== 0 ? 1 : rank;
        if (effective > worst) {
          worst = effective;
          s.status = rank === 0 && code !== 0 ? `exit ${code}` : e.status;
        }
        const a = e.artifacts;
        if (a?.diff?.length) s.has.diff = true;
        if (a?.scene) s.has.scene = true;
        if (a?.citations?.length) s.has.citations = true;
        if (a?.images?.length) s.has.images = true;
        break;
      }
      case "reward":
        s.title = `Reward ${e.total.toFixed(2)}`;
        s.preview = preview(e.components.map((c) => `${c.name} ${c.score.toFixed(2)}`).join(" · "));
        break;
      case "error":
        s.title = `Error (${e.where})`;
        s.preview = preview(e.message);
        s.status = "error";
        break;
      case "end":
        s.title = `End: ${e.status}`;
        s.status = e.status;
        s.preview = preview(
          `${e.turns} turns · ${e.usage.prompt_tokens + e.usage.completion_tokens} tokens${e.reason ? ` · ${e.reason}` : ""}`,
        );
        s.duration_ms = e.timings.total_ms;
        break;
    }
  }
  if (kind === "turn") {
    s.duration_ms = duration;
    if (!s.preview && s.tools.length) s.preview = s.tools.join(", ");
  }
  const problems = entries.filter((e) => "problem" in e).length;
  if (problems) s.preview = `${problems} unreadable line${problems === 1 ? "" : "s"} · ${s.preview}`;
  return s;
}
