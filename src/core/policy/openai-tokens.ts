import { ChatTokenizer, type TemplateMessage } from "../tokens/chat-template";
import { hermesParser, type ToolCallParser } from "../tokens/tool-call-parsers";
import { observe } from "../util/observations";
import { abortReason, DEFAULT_BACKOFF, sleep } from "../util/backoff";
import { toOpenAIMessages, toOpenAITools } from "./openai-messages";
import { HeldConversation } from "./held-conversation";
import { postJson } from "./http-post";
import { type OpenAIServerOptions, recordedParams } from "./openai-options";
import { requestSignal } from "./request-signal";
import { readCompletionBody, retryDelay } from "./server-reply";
import {
  type ChatMessage,
  type Policy,
  PolicyInfraError,
  type PolicyReply,
  type PolicyRequest,
  PolicyRequestError,
  type ToolSpec,
} from "./types";

export interface TokenPolicyOptions extends OpenAIServerOptions {
  /** The model's folder: tokenizer.json and tokenizer_config.json (with its chat_template). */
  tokenizerDir: string;
  parser?: ToolCallParser;
  /** A tokenizer already loaded (one per run: loading tokenizer.json takes a while). */
  tokenizer?: ChatTokenizer;
}

interface CompletionChoice {
  text?: string;
  token_ids?: number[] | null;
  finish_reason?: string | null;
  logprobs?: { token_logprobs?: Array<number | null> } | null;
}

const asTemplate = (messages: readonly ChatMessage[]): TemplateMessage[] =>
  toOpenAIMessages(messages).map((m) => ({ ...m, content: typeof m.content === "string" ? m.content : "" }) as TemplateMessage);

/**
 * Token-in, token-out: the conversation is one token sequence that the engine keeps. New messages
 * (system, user, tool results) are rendered with the model's own chat template and tokenised; the
 * sequence goes to the server's completions endpoint as token ids; the sampled ids are appended as
 * they came. No turn is ever tokenised again, so the sequence cannot drift. Tool calls are parsed
 * from the sampled text by the model family's parser (Hermes/Qwen `<tool_call>` by default).
 */
export class TokenInOutPolicy implements Policy {
  readonly kind = "openai";
  readonly model: string;
  readonly params: Record<string, unknown>;
  private readonly tok: ChatTokenizer;
  private readonly parser: ToolCallParser;
  /** The token sequence and the messages it holds. */
  private readonly held = new HeldConversation();

  constructor(private readonly opts: TokenPolicyOptions) {
    this.model = opts.model;
    this.tok = opts.tokenizer ?? new ChatTokenizer(opts.tokenizerDir);
    this.parser = opts.parser ?? hermesParser;
    this.params = recordedParams(opts, { tokens: true, tool_parser: this.parser.name });
  }

  async next(req: PolicyRequest): Promise<PolicyReply> {
    const tools = toOpenAITools(req.tools as ToolSpec[]);
    // Only the messages not yet in the sequence are converted and rendered: the rest are tokens already.
    // A history rewritten or cut before them goes on from the last sampled turn it still holds, or from nothing.
    const kept = this.held.resume(req.messages, JSON.stringify(tools));
    const fresh = req.messages.slice(kept);
    const prompt =
      kept === 0 ? this.tok.firstPrompt(asTemplate(fresh), tools) : this.held.ids.concat(this.tok.continuation(asTemplate(fresh), tools));
    this.held.rendered(fresh);
    const started = performance.now();
    const choice = await this.complete(prompt, req.signal);
    const latencyMs = performance.now() - started;
    observe({ kind: "policy-request", ms: latencyMs });
    const completion = choice.token_ids;
    if (!Array.isArray(completion))
      throw new PolicyRequestError(
        `the server at ${this.opts.baseURL} returned no token ids: token-in/token-out needs return_token_ids (vLLM ≥ 0.10.2)`,
      );
    const lps = choice.logprobs?.token_logprobs ?? [];
    const logprobs = lps.length === completion.length && lps.every((x) => typeof x === "number") ? (lps as number[]) : undefined;
    // A reply cut by max_tokens has no end token: the sequence gets one (template glue, not sampled).
    const ended = this.tok.eosId !== undefined && completion.at(-1) === this.tok.eosId;
    const text = this.tok.decode(completion).split(this.tok.eosToken)[0] ?? "";
    const { content, calls } = this.parser.parse(text, req.turn);
    const replyContent = content || (calls.length > 0 ? null : content);
    this.held.sampled(
      { role: "assistant", content: replyContent, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
      prompt.concat(completion, !ended && this.tok.eosId !== undefined ? [this.tok.eosId] : []),
    );
    return {
      content: replyContent,
      tool_calls: calls,
      usage: { prompt_tokens: prompt.length, completion_tokens: completion.length },
      latencyMs,
      tokens: {
        capture: "engine",
        promptIds: prompt,
        completionIds: completion,
        ...(logprobs ? { logprobs } : {}),
        ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
        model: this.model,
      },
    };
  }

  private async complete(prompt: number[], signal: AbortSignal): Promise<CompletionChoice> {
    const retries = this.opts.retries ?? 3;
    const body = JSON.stringify({
      model: this.opts.model,
      prompt,
      logprobs: 1,
      return_token_ids: true,
      skip_special_tokens: false,
      ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
      ...(this.opts.topP !== undefined ? { top_p: this.opts.topP } : {}),
      ...(this.opts.maxTokens !== undefined ? { max_tokens: this.opts.maxTokens } : {}),
      ...(this.opts.seed !== undefined ? { seed: this.opts.seed } : {}),
    });
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (signal.aborted) throw abortReason(signal);
      let refused: { status: number; retryAfter?: string | undefined } | undefined;
      // The run's signal or this request's deadline, whichever comes first.
      const request = requestSignal(signal, { ms: this.opts.timeoutMs ?? 120_000, message: "the policy server did not answer in time" });
      try {
        const res = await postJson(
          `${this.opts.baseURL.replace(/\/$/, "")}/completions`,
          body,
          { authorization: `Bearer ${this.opts.apiKey ?? "EMPTY"}` },
          request.signal,
        );
        const text = res.text;
        if (res.status === 429 || res.status >= 500) {
          refused = { status: res.status, retryAfter: res.headers["retry-after"] };
          throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
        }
        if (res.status < 200 || res.status >= 300)
          throw new PolicyRequestError(`policy server refused the request (HTTP ${res.status}): ${text.slice(0, 500)}`, res.status);
        const where = { server: this.opts.baseURL, status: res.status, contentType: res.headers["content-type"] ?? null };
        const choice = (readCompletionBody(text, where) as { choices: CompletionChoice[] }).choices[0];
        if (!choice) throw new PolicyRequestError("policy server answered with no choices");
        return choice;
      } catch (e) {
        if (signal.aborted) throw abortReason(signal);
        if (e instanceof PolicyRequestError) throw e;
        last = e;
        const wait = retryDelay(attempt, this.opts.backoff ?? DEFAULT_BACKOFF, refused?.status, refused?.retryAfter);
        if (attempt < retries) await sleep(wait, signal);
      } finally {
        request.done();
      }
    }
    const why = last instanceof Error ? last.message : String(last);
    throw new PolicyInfraError(`policy server at ${this.opts.baseURL} failed ${retries + 1} times: ${why}`);
  }
}
