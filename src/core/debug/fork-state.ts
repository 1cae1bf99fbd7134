import type { ChatMessage } from "../policy/types";
import type { Sandbox } from "../model/sandbox";

export interface ForkState {
  messages: ChatMessage[];
  turn: number;
  files: Record<string, string | Buffer | null>;
}

/**
 * What a fork copies from a paused rollout: the workdir's changes against the seed files
 * (read whole, binary-safe; deletions as null) and the conversation up to the last complete
 * turn. An assistant message whose tool calls have not all been answered is dropped with
 * its partial answers, so the new policy takes that turn afresh (a chat API refuses
 * unanswered tool calls); files the dropped calls already changed stay changed.
 */
export async function forkState(sb: Sandbox, messages: readonly ChatMessage[]): Promise<ForkState> {
  const diff = await sb.diff();
  const changed = diff.filter((d) => d.status !== "deleted").map((d) => d.path);
  const read = changed.length > 0 ? await sb.readFiles(changed) : {};
  const files: Record<string, string | Buffer | null> = {};
  for (const d of diff) files[d.path] = d.status === "deleted" ? null : (read[d.path] ?? null);

  const kept = [...messages];
  const lastAssistant = kept.findLastIndex((m) => m.role === "assistant");
  const last = kept[lastAssistant];
  if (last?.role === "assistant" && last.tool_calls && last.tool_calls.length > 0) {
    const answered = new Set(kept.slice(lastAssistant + 1).flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
    if (!last.tool_calls.every((c) => answered.has(c.id))) kept.splice(lastAssistant);
  }
  // One assistant message per turn: the turns taken so far, and so the fork's first turn number.
  const turn = kept.filter((m) => m.role === "assistant").length;
  return { messages: kept, turn, files };
}
