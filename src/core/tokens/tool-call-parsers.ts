import type { ChatToolCall } from "../schema/trajectory";

/** Splits sampled text into the reply's text and its tool calls, as one model family writes them. */
export interface ToolCallParser {
  readonly name: string;
  parse(text: string, turn: number): { content: string; calls: ChatToolCall[] };
}

/**
 * Hermes / Qwen: each call is `<tool_call>{"name": …, "arguments": {…}}</tool_call>`. A block whose
 * JSON does not parse is still a call (named as written when the name can be read), so the tool's
 * error reaches the agent instead of the call vanishing into the text.
 */
export const hermesParser: ToolCallParser = {
  name: "hermes",
  parse(text, turn) {
    const calls: ChatToolCall[] = [];
    const content = text.replace(/<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g, (_m, body: string) => {
      const id = `call_${turn}_${calls.length}`;
      try {
        const o = JSON.parse(body) as { name?: unknown; arguments?: unknown };
        const args = typeof o.arguments === "string" ? o.arguments : JSON.stringify(o.arguments ?? {});
        calls.push({ id, name: typeof o.name === "string" ? o.name : "", arguments: args });
      } catch {
        calls.push({ id, name: /"name"\s*:\s*"([^"]*)"/.exec(body)?.[1] ?? "", arguments: body });
      }
      return "";
    });
    return { content: content.trim(), calls };
  },
};

/** Parsers by name (`--tool-parser`); a model family's own is added here. */
export const TOOL_CALL_PARSERS: Record<string, ToolCallParser> = { hermes: hermesParser, qwen: hermesParser };

export function toolCallParser(name: string): ToolCallParser {
  const p = TOOL_CALL_PARSERS[name];
  if (!p) throw new Error(`tool call parser '${name}' is not known (known: ${Object.keys(TOOL_CALL_PARSERS).join(", ")})`);
  return p;
}
