import { OpenAIPolicy } from "../../policy/openai";
import { OpenAIResponsesPolicy } from "../../policy/openai-responses";
import type { Policy, PolicyReply, PolicyRequest } from "../../policy/types";
import type { PolicyTarget, Sampling } from "./row-fields";

/** The policy a /run or /v1/responses plays against: the chat policy or the Responses one, with the row's sampling. */
export function policyFor(target: PolicyTarget, s: Sampling): Policy {
  const opts = {
    baseURL: target.baseURL,
    model: s.model,
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.topP !== undefined ? { topP: s.topP } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
    ...(s.seed !== undefined ? { seed: s.seed } : {}),
  };
  return target.api === "responses" ? new OpenAIResponsesPolicy(opts) : new OpenAIPolicy(opts);
}

/** A policy that keeps each turn's reply (its tokens as the server sent them), for the run's output items. */
export class RecordingPolicy implements Policy {
  readonly replies = new Map<number, PolicyReply>();
  readonly kind: string;
  readonly model?: string;
  readonly params?: Record<string, unknown>;

  constructor(private readonly inner: Policy) {
    this.kind = inner.kind;
    if (inner.model !== undefined) this.model = inner.model;
    if (inner.params !== undefined) this.params = inner.params;
  }

  async next(req: PolicyRequest): Promise<PolicyReply> {
    const reply = await this.inner.next(req);
    this.replies.set(req.turn, reply);
    return reply;
  }
}
