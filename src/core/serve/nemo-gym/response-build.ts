import { randomUUID } from "node:crypto";
import { assistantItems, type ResponsesItem, toResponsesTools } from "../../policy/openai-responses";
import type { ChatMessage, ToolSpec } from "../../policy/types";
import type { ChatToolCall, ContentPart, RewardComponent, Usage } from "../../schema/trajectory";
import type { SampledTokens } from "../../tokens/types";
import type { CreateParams } from "./request-bodies";

/**
 * The Responses API output NeMo Gym's agents return, built from what the engine played. One
 * model call is said as its items (an assistant message if it said anything, then its
 * function calls), and the LAST of them carries the call's tokens as TokenIDLogProbMixin names
 * them, as NeMo Gym's responses converter attaches them (`postprocess_assistant_message_dict`):
 * NeMo RL reads one (prompt, generation) pair per item that has them, so a copy on every item
 * of a call would count its tokens twice. Tool results follow as `function_call_output` items.
 */

/** TokenIDLogProbMixin's fields, when the turn's ids and logprobs were both captured (the mixin requires all three). */
export function tokenFields(tokens: SampledTokens | undefined): Record<string, unknown> {
  if (!tokens || tokens.capture === "absent" || !tokens.promptIds || !tokens.completionIds || !tokens.logprobs) return {};
  return { prompt_token_ids: tokens.promptIds, generation_token_ids: tokens.completionIds, generation_log_probs: tokens.logprobs };
}

/** One model call's output items, its tokens on the last one. */
export function modelCallItems(content: string | null, calls: readonly ChatToolCall[], tokens: SampledTokens | undefined): ResponsesItem[] {
  const items = assistantItems(content, calls);
  const last = items[items.length - 1];
  if (last) Object.assign(last, tokenFields(tokens));
  return items;
}

/** A tool's answer as Responses output: text, or input_text/input_image parts. */
export function functionCallOutput(callId: string, output: string | readonly ContentPart[]): ResponsesItem {
  const out =
    typeof output === "string"
      ? output
      : output.map((p) =>
          p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: p.image_url.url, detail: "auto" },
        );
  return { type: "function_call_output", call_id: callId, output: out, id: `fco_${randomUUID().replace(/-/g, "")}`, status: "completed" };
}

/** The agent's final word in a response: the text of its last assistant message (null when it ended on a tool call). */
export function finalText(output: ReadonlyArray<Record<string, unknown>>): string | null {
  for (let i = output.length - 1; i >= 0; i--) {
    const o = output[i] as Record<string, unknown>;
    if (o.type === "function_call" || o.type === "function_call_output") return null;
    if (o.type === "message" && (o.role === "assistant" || o.role === undefined)) {
      if (typeof o.content === "string") return o.content;
      if (Array.isArray(o.content))
        return (o.content as Array<{ type?: string; text?: string }>)
          .filter((c) => c.type === "output_text" && typeof c.text === "string")
          .map((c) => c.text)
          .join("");
    }
  }
  return null;
}

/** A NeMoGymResponse (OpenAI's Response object) around the output, echoing the create params as NeMo Gym's converter does. */
export function nemoResponse(p: {
  params: CreateParams;
  model: string;
  output: ResponsesItem[];
  tools: readonly ToolSpec[];
  usage: Usage;
  incomplete?: boolean;
}): Record<string, unknown> {
  const cp = p.params;
  return {
    id: `resp_${randomUUID().replace(/-/g, "")}`,
    created_at: Math.floor(Date.now() / 1000),
    model: p.model,
    object: "response",
    output: p.output,
    error: null,
    incomplete_details: p.incomplete ? { reason: "max_output_tokens" } : null,
    instructions: cp.instructions ?? null,
    metadata: cp.metadata ?? null,
    parallel_tool_calls: cp.parallel_tool_calls ?? true,
    temperature: cp.temperature ?? null,
    tool_choice: cp.tool_choice ?? "auto",
    tools: toResponsesTools(p.tools),
    top_p: cp.top_p ?? null,
    max_output_tokens: cp.max_output_tokens ?? null,
    status: p.incomplete ? "incomplete" : "completed",
    usage: {
      input_tokens: p.usage.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: p.usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: p.usage.prompt_tokens + p.usage.completion_tokens,
    },
  };
}

/** A verify response's `reward_components`: each component's score by name (a repeated name gets `#2`, `#3`). */
export function rewardComponents(components: readonly RewardComponent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of components) {
    let name = c.name;
    for (let n = 2; name in out; n++) name = `${c.name}#${n}`;
    out[name] = c.score;
  }
  return out;
}

/** The task's prompt messages as Responses input items (what seed_session tells a client the model should be shown). */
export function promptItems(messages: readonly ChatMessage[]): ResponsesItem[] {
  return messages
    .filter((m): m is Extract<ChatMessage, { role: "system" | "user" }> => m.role === "system" || m.role === "user")
    .map((m) => ({
      type: "message",
      role: m.role,
      content:
        typeof m.content === "string"
          ? m.content
          : m.content.map((p) =>
              p.type === "text"
                ? { type: "input_text", text: p.text }
                : { type: "input_image", image_url: p.image_url.url, detail: "auto" },
            ),
    }));
}
