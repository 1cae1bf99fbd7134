import type { ChatToolCall } from "../schema/trajectory";
import type { ChatMessage, Policy, PolicyReply, PolicyRequest, ToolSpec } from "./types";

/** What the person playing the agent sees at one turn: the conversation so far and the tools with their schemas. */
export interface HumanRequest {
  turn: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
}

/** The person's move: call a tool (arguments as an object, or raw JSON text), or end with a final message. */
export type HumanAction =
  | { kind: "tool"; name: string; arguments: Record<string, unknown> | string; content?: string }
  | { kind: "message"; content: string };

/** Thrown by `answer` for a move the rollout cannot take; the request stays open for a corrected one. */
export class HumanActionError extends Error {
  override name = "HumanActionError";
}

function stopped(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("the rollout was stopped while waiting for the human move");
}

interface Pending {
  request: HumanRequest;
  started: number;
  resolve: (r: PolicyReply) => void;
  reject: (e: Error) => void;
}

/**
 * A person is the policy: `next()` publishes the request (listeners and `current()`) and waits
 * for `answer()`; the rollout's signal (stop, timeout) ends the wait. Nothing here knows who
 * shows the request (the editor's Play Task panel, the debugger's fork).
 */
export class HumanPolicy implements Policy {
  readonly kind = "human";
  private pending: Pending | null = null;
  private readonly listeners = new Set<(r: HumanRequest | null) => void>();
  private calls = 0;
  private gone: Error | null = null;

  /** Called with each new request, and with null once it is answered or withdrawn. */
  onRequest(listener: (r: HumanRequest | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The request waiting for the person, if any. */
  current(): HumanRequest | null {
    return this.pending?.request ?? null;
  }

  next(req: PolicyRequest): Promise<PolicyReply> {
    if (this.pending) return Promise.reject(new Error("the human policy is already waiting for a move"));
    if (this.gone) return Promise.reject(this.gone);
    if (req.signal.aborted) return Promise.reject(stopped(req.signal));
    const request: HumanRequest = { turn: req.turn, messages: [...req.messages], tools: [...req.tools] };
    return new Promise<PolicyReply>((resolve, reject) => {
      const onAbort = () => {
        this.settle();
        reject(stopped(req.signal));
      };
      req.signal.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        request,
        started: performance.now(),
        resolve: (r) => {
          req.signal.removeEventListener("abort", onAbort);
          resolve(r);
        },
        reject: (e) => {
          req.signal.removeEventListener("abort", onAbort);
          this.settle();
          reject(e);
        },
      };
      this.emit(request);
    });
  }

  /**
   * The person is gone (the panel closed): the waiting request, and every later one, fails
   * with this reason, so the rollout ends instead of waiting forever.
   */
  cancel(reason: Error): void {
    this.gone = reason;
    this.pending?.reject(reason);
  }

  /** Takes the person's move for the waiting request; throws HumanActionError for a move that cannot be made. */
  answer(action: HumanAction): void {
    const p = this.pending;
    if (!p) throw new HumanActionError("no move is awaited: the rollout is not waiting for the agent");
    const reply = this.toReply(action, p);
    this.settle();
    p.resolve(reply);
  }

  private toReply(action: HumanAction, p: Pending): PolicyReply {
    const latencyMs = performance.now() - p.started;
    if (action.kind === "message") {
      if (!action.content.trim()) throw new HumanActionError("the final message is empty");
      return { content: action.content, tool_calls: [], latencyMs };
    }
    if (!p.request.tools.some((t) => t.name === action.name)) {
      throw new HumanActionError(`unknown tool '${action.name}'; the tools are: ${p.request.tools.map((t) => t.name).join(", ")}`);
    }
    let args: string;
    if (typeof action.arguments === "string") {
      try {
        const v: unknown = JSON.parse(action.arguments || "{}");
        if (typeof v !== "object" || v === null || Array.isArray(v)) throw new HumanActionError("the arguments must be a JSON object");
        args = JSON.stringify(v);
      } catch (e) {
        throw e instanceof HumanActionError ? e : new HumanActionError(`the arguments are not valid JSON: ${(e as Error).message}`);
      }
    } else {
      args = JSON.stringify(action.arguments);
    }
    const call: ChatToolCall = { id: `human_${p.request.turn}_${this.calls++}`, name: action.name, arguments: args };
    return { content: action.content?.trim() ? action.content : null, tool_calls: [call], latencyMs };
  }

  private settle(): void {
    this.pending = null;
    this.emit(null);
  }

  private emit(r: HumanRequest | null): void {
    for (const l of this.listeners) l(r);
  }
}
