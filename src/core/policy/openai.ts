import OpenAI, { APIError } from "openai";
import type { ChatToolCall, Usage } from "../schema/trajectory";
import { accumulateChunk, CAPTURE_REQUEST, tokensFromResponse, type WireChoice, type WireResponse } from "../tokens/server-capture";
import { toOpenAIMessages, toOpenAITools } from "./openai-messages";
import { type OpenAIServerOptions, recordedParams } from "./openai-options";
import { requestSignal } from "./request-signal";
import { retriedRequest } from "./retried-request";
import { readCompletionBody, UnreadableReplyError } from "./server-reply";
import { type Policy, type PolicyReply, type PolicyRequest, PolicyRequestError } from "./types";

export interface OpenAIPolicyOptions extends OpenAIServerOptions {
  /** Use server-sent events; the reply is assembled from the deltas. */
  stream?: boolean;
  /**
   * Ask for the sampled token ids and logprobs (vLLM, SGLang) and record them; default on. A server
   * that refuses the fields (OpenAI's API) is asked again without them, and its turns say capture is absent.
   */
  capture?: boolean;
}

/** A 400 that names a field the server does not take: the capture fields, for a server without capture. */
const REFUSED_FIELD =
  /return_token_ids|logprobs|unrecognized request argument|extra (fields|inputs) not permitted|unknown (field|parameter)/i;

/** The key from the environment: RLENV_API_KEY first, then OPENAI_API_KEY; local servers accept any. */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.RLENV_API_KEY ?? env.OPENAI_API_KEY ?? "EMPTY";
}

/** Any OpenAI-compatible Chat Completions server (vLLM, SGLang, Ollama, TGI, OpenAI). */
export class OpenAIPolicy implements Policy {
  readonly kind = "openai";
  readonly model: string;
  readonly params: Record<string, unknown>;
  private readonly client: OpenAI;
  /** Off once the server refused the capture fields: asking again each turn would double every request. */
  private capture: boolean;

  constructor(private readonly opts: OpenAIPolicyOptions) {
    this.model = opts.model;
    this.capture = opts.capture ?? true;
    // Retries are ours (backoff with jitter, abortable, counted); the client must not add its own.
    this.client = new OpenAI({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey ?? apiKeyFromEnv(),
      maxRetries: 0,
      timeout: opts.timeoutMs ?? 120_000,
    });
    this.params = recordedParams(opts, { stream: opts.stream, logprobs: this.capture ? true : undefined });
  }

  next(req: PolicyRequest): Promise<PolicyReply> {
    return retriedRequest(
      this.opts,
      req.signal,
      () => (this.opts.stream ? this.streamOnce(req) : this.once(req)),
      (e) => {
        if (!(this.capture && e instanceof APIError && e.status === 400 && REFUSED_FIELD.test(e.message))) return false;
        // The capture fields refused (OpenAI's API does not know return_token_ids): the same request
        // without them, not counted as a retry. Any other 400 (context too long) fails as before.
        this.capture = false;
        return true;
      },
    );
  }

  private body(req: PolicyRequest) {
    return {
      model: this.opts.model,
      messages: toOpenAIMessages(req.messages),
      ...(req.tools.length > 0 ? { tools: toOpenAITools(req.tools) } : {}),
      ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
      ...(this.opts.topP !== undefined ? { top_p: this.opts.topP } : {}),
      ...(this.opts.maxTokens !== undefined ? { max_tokens: this.opts.maxTokens } : {}),
      ...(this.opts.seed !== undefined ? { seed: this.opts.seed } : {}),
      ...(this.capture ? CAPTURE_REQUEST : {}),
    };
  }

  private async once(req: PolicyRequest): Promise<Omit<PolicyReply, "latencyMs">> {
    // A signal of the request's own: the SDK leaves a listener on the signal it is given.
    const request = requestSignal(req.signal);
    let res: OpenAI.Chat.Completions.ChatCompletion;
    try {
      const sent = this.client.chat.completions.create({ ...this.body(req), stream: false }, { signal: request.signal });
      // The body is read here (its logprob entries slimmed before JSON.parse), so that a 2xx whose body is
      // empty, cut short or an HTML page is the server's fault (retried), not a TypeError of the engine's.
      // Errors and statuses are the SDK's as before: asResponse resolves only for a 2xx.
      const response = await sent.asResponse();
      const where = { server: this.opts.baseURL, status: response.status, contentType: response.headers.get("content-type") };
      res = readCompletionBody(await response.text(), where) as OpenAI.Chat.Completions.ChatCompletion;
    } finally {
      request.done();
    }
    const msg = res.choices[0]?.message;
    if (!msg) throw new PolicyRequestError("policy server answered with no choices");
    const calls: ChatToolCall[] = [];
    for (const c of msg.tool_calls ?? []) {
      if (c.type === "function") calls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
    }
    const tokens = tokensFromResponse(res as WireResponse, res.choices[0] as WireChoice);
    return { content: msg.content ?? null, tool_calls: calls, ...(res.usage ? { usage: usageOf(res.usage) } : {}), tokens };
  }

  private async streamOnce(req: PolicyRequest): Promise<Omit<PolicyReply, "latencyMs">> {
    // Held until the last chunk is read: aborting the run stops the stream mid-way.
    const request = requestSignal(req.signal);
    try {
      return await this.streamWith(req, request.signal);
    } catch (e) {
      // An event cut inside its JSON: the stream was broken off, not answered.
      if (e instanceof SyntaxError)
        throw new UnreadableReplyError(`policy server at ${this.opts.baseURL} sent a broken stream event: ${e.message}`);
      throw e;
    } finally {
      request.done();
    }
  }

  private async streamWith(req: PolicyRequest, signal: AbortSignal): Promise<Omit<PolicyReply, "latencyMs">> {
    const stream = await this.client.chat.completions.create(
      { ...this.body(req), stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let content = "";
    let sawContent = false;
    let chunks = 0;
    let finished = false;
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let usage: Usage | undefined;
    const wire: WireResponse = {};
    const wireChoice: WireChoice = {};
    for await (const chunk of stream) {
      chunks++;
      if (chunk.usage) usage = usageOf(chunk.usage);
      const choice = chunk.choices[0];
      if (choice?.finish_reason) finished = true;
      accumulateChunk(wire, wireChoice, chunk as WireResponse, (choice ?? {}) as WireChoice);
      const delta = choice?.delta;
      if (!delta) continue;
      if (typeof delta.content === "string") {
        content += delta.content;
        sawContent = true;
      }
      for (const tc of delta.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? { id: "", name: "", arguments: "" };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.name += tc.function.name;
        if (tc.function?.arguments) cur.arguments += tc.function.arguments;
        calls.set(tc.index, cur);
      }
    }
    // A 2xx stream with no event at all (an HTML page, an empty body) is no reply: the server's fault.
    if (chunks === 0) throw new UnreadableReplyError(`policy server at ${this.opts.baseURL} answered a streamed request with no event`);
    // Every server ends a choice with its finish_reason: a stream that stops before it was cut short.
    if (!finished)
      throw new UnreadableReplyError(`policy server at ${this.opts.baseURL} ended its stream before the reply's finish_reason`);
    const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
    const tokens = tokensFromResponse(wire, wireChoice);
    return { content: sawContent ? content : null, tool_calls: ordered, ...(usage ? { usage } : {}), tokens };
  }
}

function usageOf(u: { prompt_tokens?: number; completion_tokens?: number }): Usage {
  return { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0 };
}
