import type { ChatRecord } from "./export-chat";

type TrlMessage =
  | { role: "system" | "user"; content: unknown }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: Array<{ type: "function"; function: { name: string; arguments: unknown } }>;
    }
  | { role: "tool"; name: string; content: string };

/** A tool call's arguments as TRL's chat templates read them: the parsed object, the raw text when it is not one. */
function argumentsOf(raw: string): unknown {
  try {
    const v = JSON.parse(raw) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : raw;
  } catch {
    return raw;
  }
}

/**
 * A chat record's messages as TRL's dataset docs show tool calling: an assistant turn's calls
 * with their arguments as an object (chat templates such as Qwen's render them with `tojson`;
 * a JSON string there would be rendered quoted), and each tool message named by the tool that
 * answered, which templates print and which the OpenAI form leaves to `tool_call_id`.
 */
export function trlMessages(messages: ChatRecord["messages"]): TrlMessage[] {
  const toolOf = new Map<string, string>();
  return messages.map((m): TrlMessage => {
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) toolOf.set(c.id, c.function.name);
      return {
        role: "assistant",
        content: m.content,
        ...(m.tool_calls?.length
          ? {
              tool_calls: m.tool_calls.map((c) => ({
                type: "function" as const,
                function: { name: c.function.name, arguments: argumentsOf(c.function.arguments) },
              })),
            }
          : {}),
      };
    }
    if (m.role === "tool") return { role: "tool", name: toolOf.get(m.tool_call_id) ?? "", content: m.content };
    return m;
  });
}
