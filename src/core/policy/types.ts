import type { ChatToolCall, ContentPart, Usage } from "../schema/trajectory";

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
}

/** One agent's decision-maker for one rollout. Infra failures throw PolicyInfraError. */
export interface Policy {
  readonly kind: string;
  readonly model?: string;
  next(req: PolicyRequest): Promise<PolicyReply>;
}

/** A failure of the policy server (5xx, reset, timeout after retries): the rollout is retried, not scored. */
export class PolicyInfraError extends Error {
  override name = "PolicyInfraError";
}
