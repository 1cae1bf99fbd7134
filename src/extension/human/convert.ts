import type { ChatMessage, ToolSpec } from "../../core/policy/types";
import type { PlayMessage, PlayTool } from "../../core/view/protocol/play";

/** A chat message as the Play Task panel shows it: text only (images named, never loaded). */
export function toPlayMessage(m: ChatMessage, toolNames: ReadonlyMap<string, string>): PlayMessage {
  const text =
    typeof m.content === "string"
      ? m.content
      : m.content === null
        ? ""
        : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
  if (m.role === "assistant")
    return {
      role: "assistant",
      text,
      ...(m.tool_calls?.length ? { toolCalls: m.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments })) } : {}),
    };
  if (m.role === "tool") {
    const tool = toolNames.get(m.tool_call_id);
    return { role: "tool", text, ...(tool ? { tool } : {}) };
  }
  return { role: m.role, text };
}

/** The conversation for the panel, each observation labelled with the tool that made it. */
export function toPlayMessages(messages: readonly ChatMessage[]): PlayMessage[] {
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.tool_calls ?? []) names.set(c.id, c.name);
  return messages.map((m) => toPlayMessage(m, names));
}

export function toPlayTools(tools: readonly ToolSpec[]): PlayTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}
