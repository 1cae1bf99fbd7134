import type { Sandbox } from "../model/sandbox";
import type { Solution } from "../schema/task";
import type { ChatToolCall, ContentPart, Usage } from "../schema/trajectory";
import type { SampledTokens } from "../tokens/types";

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string | ContentPart[] };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface PolicyRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  turn: number;
  signal: AbortSignal;
}

export interface PolicyReply {
  content: string | null;
  tool_calls: ChatToolCall[];
  usage?: Usage;
  latencyMs: number;
  /** The tokens of this turn, from policies that capture them (OpenAI-compatible servers that return ids). */
  tokens?: SampledTokens;
}

/** What a policy may touch before the first turn (the oracle writes files directly when no tool can). */
export interface PolicyPrepareContext {
  tools: readonly ToolSpec[];
  sandbox(): Promise<Sandbox>;
  signal: AbortSignal;
  timeoutMs: number;
  /** Set when a later stage of a multi-stage task begins (prepare is called again then): that stage's reference solution. */
  stage?: { index: number; name: string; solution?: Solution };
}

/** One agent's decision-maker for one rollout. Infra failures throw PolicyInfraError. */
export interface Policy {
  readonly kind: string;
  readonly model?: string;
  /** Sampling parameters, recorded in the trajectory's start event. */
  readonly params?: Record<string, unknown>;
  /** Optional: called once after the sandbox is reset, before the first turn. */
  prepare?(ctx: PolicyPrepareContext): Promise<void>;
  next(req: PolicyRequest): Promise<PolicyReply>;
}

/** A failure of the policy server (5xx, reset, timeout after retries): the rollout is retried, not scored. */
export class PolicyInfraError extends Error {
  override name = "PolicyInfraError";
}

/** A request the server refused (4xx: bad request, context too long): the rollout fails, never retried. */
export class PolicyRequestError extends Error {
  override name = "PolicyRequestError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
