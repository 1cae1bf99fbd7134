import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { ResponseCreateParamsNonStreaming } from "openai/resources/responses/responses";
import type { ChatToolCall, Usage } from "../schema/trajectory";
import type { SampledTokens } from "../tokens/types";
import { apiKeyFromEnv } from "./openai";
import { retriedRequest } from "./retried-request";
import { type OpenAIServerOptions, recordedParams } from "./openai-options";
import { requestSignal } from "./request-signal";
import { UnreadableReplyError } from "./server-reply";
import type { ChatMessage, Policy, PolicyReply, PolicyRequest, ToolSpec } from "./types";

/**
 * A policy behind an OpenAI Responses API server (`POST {baseURL}/responses`): OpenAI's, vLLM's,
 * or a NeMo Gym model server (responses_api_models/vllm_model), which puts the turn's tokens on
 * the last output item as TokenIDLogProbMixin names them (`prompt_token_ids`,
 * `generation_token_ids`, `generation_log_probs`). The conversation is sent as input items; the
 * items a reply came with are sent back as they came (token fields included), since NeMo RL's
 * vLLM server rebuilds the prompt from those ids and a re-rendered message would drift. Retries,
 * errors and the infra/request split are the chat policy's (openai.ts).
 */

export type ResponsesItem = Record<string, unknown> & { type?: string };

/** Tools as the Responses API takes them (flat, not under `function`). */
export function toResponsesTools(tools: readonly ToolSpec[]): ResponsesItem[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }));
}

const partsText = (content: string | ReadonlyArray<{ type: string; text?: string }>): string =>
  typeof content === "string" ? content : content.map((p) => (p.type === "text" ? (p.text ?? "") : "[image]")).join("\n");

/** A message's content as Responses input content (text and images). */
function inputContent(content: ChatMessage["content"]): string | ResponsesItem[] {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: p.image_url.url, detail: "auto" },
  );
}

/** The items one assistant message is said with: its text (if any), then its tool calls. */
export function assistantItems(content: string | null, calls: readonly ChatToolCall[]): ResponsesItem[] {
  const items: ResponsesItem[] = [];
  if (content || calls.length === 0)
    items.push({
      type: "message",
      role: "assistant",
      status: "completed",
      id: `msg_${randomUUID().replace(/-/g, "")}`,
      content: [{ type: "output_text", text: content ?? "", annotations: [] }],
    });
  for (const c of calls)
    items.push({ type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments, id: c.id, status: "completed" });
  return items;
}

/** Our conversation as Responses input items; `held[k]` replaces the k-th assistant message with the items it came as. */
export function toResponsesInput(messages: readonly ChatMessage[], held: readonly ResponsesItem[][] = []): ResponsesItem[] {
  const items: ResponsesItem[] = [];
  let k = 0;
  for (const m of messages) {
    if (m.role === "assistant") {
      items.push(...(held[k] ?? assistantItems(m.content, m.tool_calls ?? [])));
      k++;
    } else if (m.role === "tool") items.push({ type: "function_call_output", call_id: m.tool_call_id, output: partsText(m.content) });
    else items.push({ type: "message", role: m.role, content: inputContent(m.content) });
  }
  return items;
}

const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0);
const isNums = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === "number");

/** The turn's tokens: from the (last) output item that carries TokenIDLogProbMixin's fields; "absent" when none does. */
export function tokensOfOutput(output: readonly ResponsesItem[], meta: { model?: string; finishReason?: string }): SampledTokens {
  const withIds = [...output].reverse().find((o) => isIds(o.prompt_token_ids) && isIds(o.generation_token_ids));
  const extra = { ...(meta.finishReason ? { finishReason: meta.finishReason } : {}), ...(meta.model ? { model: meta.model } : {}) };
  if (!withIds) return { capture: "absent", ...extra };
  const promptIds = withIds.prompt_token_ids as number[];
  const completionIds = withIds.generation_token_ids as number[];
  const lps = withIds.generation_log_probs;
  return {
    capture: "server",
    promptIds,
    completionIds,
    ...(isNums(lps) && lps.length === completionIds.length ? { logprobs: lps } : {}),
    ...extra,
  };
}

/** A Responses API reply as ours: the text of its assistant messages, its function calls, usage, tokens. */
export function replyOfResponse(
  body: Record<string, unknown>,
  where: string,
): Omit<PolicyReply, "latencyMs"> & { output: ResponsesItem[] } {
  if (!Array.isArray(body.output))
    throw new UnreadableReplyError(`policy server at ${where} answered with JSON that is not a response (no output array)`);
  const output = body.output as ResponsesItem[];
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  output.forEach((o, i) => {
    if (o.type === "message" && Array.isArray(o.content))
      for (const c of o.content as Array<{ type?: string; text?: string }>)
        if (c.type === "output_text" && typeof c.text === "string") texts.push(c.text);
    if (o.type === "function_call")
      calls.push({
        id: String(o.call_id ?? o.id ?? `call_${i}`),
        name: String(o.name ?? ""),
        arguments: typeof o.arguments === "string" ? o.arguments : JSON.stringify(o.arguments ?? {}),
      });
  });
  const u = body.usage as { input_tokens?: number; output_tokens?: number } | undefined;
  const usage: Usage | undefined = u ? { prompt_tokens: u.input_tokens ?? 0, completion_tokens: u.output_tokens ?? 0 } : undefined;
  const incomplete = (body.incomplete_details as { reason?: string } | null | undefined)?.reason;
  const finishReason = incomplete === "max_output_tokens" ? "length" : incomplete ? incomplete : calls.length > 0 ? "tool_calls" : "stop";
  const tokens = tokensOfOutput(output, { ...(typeof body.model === "string" ? { model: body.model } : {}), finishReason });
  return { content: texts.length > 0 ? texts.join("") : null, tool_calls: calls, ...(usage ? { usage } : {}), tokens, output };
}

export class OpenAIResponsesPolicy implements Policy {
  readonly kind = "openai-responses";
  readonly model: string;
  readonly params: Record<string, unknown>;
  private readonly client: OpenAI;
  /** The output items of each reply so far, sent back as they came. */
  private readonly held: ResponsesItem[][] = [];

  constructor(private readonly opts: OpenAIServerOptions & { extraBody?: Record<string, unknown> }) {
    this.model = opts.model;
    this.client = new OpenAI({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey ?? apiKeyFromEnv(),
      maxRetries: 0,
      timeout: opts.timeoutMs ?? 120_000,
    });
    this.params = recordedParams(opts, { api: "responses" });
  }

  async next(req: PolicyRequest): Promise<PolicyReply> {
    const { output, ...reply } = await retriedRequest(this.opts, req.signal, () => this.once(req));
    this.held.push(output);
    return reply;
  }

  private body(req: PolicyRequest): Record<string, unknown> {
    const o = this.opts;
    return {
      ...o.extraBody,
      model: o.model,
      input: toResponsesInput(req.messages, this.held),
      ...(req.tools.length > 0 ? { tools: toResponsesTools(req.tools) } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.topP !== undefined ? { top_p: o.topP } : {}),
      ...(o.maxTokens !== undefined ? { max_output_tokens: o.maxTokens } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
    };
  }

  private async once(req: PolicyRequest): Promise<Omit<PolicyReply, "latencyMs"> & { output: ResponsesItem[] }> {
    const request = requestSignal(req.signal);
    try {
      const sent = this.client.responses.create(this.body(req) as unknown as ResponseCreateParamsNonStreaming, { signal: request.signal });
      const response = await sent.asResponse();
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw new UnreadableReplyError(
          `policy server at ${this.opts.baseURL} answered HTTP ${response.status} with a body that is not JSON (${(e as Error).message})`,
        );
      }
      if (typeof body !== "object" || body === null)
        throw new UnreadableReplyError(`policy server at ${this.opts.baseURL} answered with JSON that is not a response`);
      return replyOfResponse(body as Record<string, unknown>, this.opts.baseURL);
    } finally {
      request.done();
    }
  }
}
