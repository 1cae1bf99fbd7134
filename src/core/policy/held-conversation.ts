import type { ChatToolCall } from "../schema/trajectory";
import type { ChatMessage } from "./types";

/** A message as it was when its tokens went into the sequence: the parts a chat template can print. */
interface HeldMessage {
  role: ChatMessage["role"];
  /** The text, or the parts as JSON (an array can be changed in place after it was rendered). */
  content: string | null;
  parts: boolean;
  toolCallId: string | undefined;
  calls: readonly ChatToolCall[] | undefined;
}

function hold(m: ChatMessage): HeldMessage {
  const parts = Array.isArray(m.content);
  return {
    role: m.role,
    content: parts ? JSON.stringify(m.content) : (m.content as string | null),
    parts,
    toolCallId: m.role === "tool" ? m.tool_call_id : undefined,
    calls:
      m.role === "assistant" && m.tool_calls?.length
        ? m.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))
        : undefined,
  };
}

/** Whether a message of the request is still the one the sequence holds (strings compare by reference first). */
function same(h: HeldMessage, m: ChatMessage): boolean {
  if (h.role !== m.role) return false;
  if (h.parts ? !Array.isArray(m.content) || JSON.stringify(m.content) !== h.content : m.content !== h.content) return false;
  if (m.role === "tool" && m.tool_call_id !== h.toolCallId) return false;
  if (m.role !== "assistant") return true;
  const calls = m.tool_calls?.length ? m.tool_calls : undefined;
  if ((calls?.length ?? 0) !== (h.calls?.length ?? 0)) return false;
  return !calls || calls.every((c, i) => c.id === h.calls?.[i]?.id && c.name === h.calls[i]?.name && c.arguments === h.calls[i]?.arguments);
}

/**
 * The messages a token-in/token-out sequence holds, and where it may go on from. The sequence is the
 * first prompt's rendering, then for each turn the sampled ids and the rendering of the messages that
 * followed. A request whose messages start with what is held (up to the end of a sampled turn) goes on
 * from there: only the rest is rendered, and the sampled ids stay as they were sampled. A request that
 * rewrote or cut the history (a compacted observation, an edited reply, another tool list, a fork from
 * an earlier turn) goes on from the last sampled turn before the first change, or from nothing: then
 * the whole conversation is rendered again, as a full render would give it.
 */
export class HeldConversation {
  /** The sequence's ids: what the last prompt and completion hold. */
  ids: number[] = [];
  private held: HeldMessage[] = [];
  /** After each sampled turn: how many messages and ids the sequence held then. */
  private cuts: Array<{ messages: number; ids: number }> = [];
  private tools = "";

  /**
   * How many of `messages` the sequence still holds, at the end of a sampled turn (0: none, render
   * them all). Lets go of what follows that point; `tools` is the tool list as JSON.
   */
  resume(messages: readonly ChatMessage[], tools: string): number {
    let kept = 0;
    if (tools === this.tools) {
      const n = Math.min(messages.length, this.held.length);
      let i = 0;
      while (i < n && same(this.held[i] as HeldMessage, messages[i] as ChatMessage)) i++;
      while (this.cuts.length > 0 && (this.cuts.at(-1)?.messages ?? 0) > i) this.cuts.pop();
      const cut = this.cuts.at(-1);
      if (cut) {
        kept = cut.messages;
        if (this.ids.length > cut.ids) this.ids = this.ids.slice(0, cut.ids);
      }
    }
    if (kept === 0) {
      this.ids = [];
      this.cuts = [];
      this.tools = tools;
    }
    this.held.length = kept;
    return kept;
  }

  /** The messages rendered into the sequence after what `resume` kept. */
  rendered(messages: readonly ChatMessage[]): void {
    for (const m of messages) this.held.push(hold(m));
  }

  /** The end of a sampled turn: the reply as the caller will put it in the conversation, and the sequence with it. */
  sampled(reply: ChatMessage, ids: number[]): void {
    this.held.push(hold(reply));
    this.ids = ids;
    this.cuts.push({ messages: this.held.length, ids: ids.length });
  }
}
