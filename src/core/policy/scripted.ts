import type { ChatToolCall } from "../schema/trajectory";
import type { Policy, PolicyReply, PolicyRequest } from "./types";

/** One planned turn: the assistant's text and the tool calls it makes. */
export interface PlannedTurn {
  content: string | null;
  calls: Array<{ name: string; arguments: string }>;
}

/**
 * Plays a fixed list of turns, one per policy call; after the last it answers with no
 * tool calls, which ends the rollout. The base of oracle, nop and replay.
 */
export class PlannedPolicy implements Policy {
  private turn = 0;
  constructor(
    readonly kind: string,
    protected readonly plan: PlannedTurn[],
  ) {}

  /** Forgets the planned turns not played yet (a stage that ended before its plan did: the next one starts from its own). */
  protected dropUnplayed(): void {
    this.plan.length = Math.min(this.plan.length, this.turn);
  }

  async next(req: PolicyRequest): Promise<PolicyReply> {
    const started = performance.now();
    const t = this.plan[this.turn];
    const turn = this.turn++;
    if (!t) return { content: "(no more planned actions)", tool_calls: [], latencyMs: performance.now() - started };
    const calls: ChatToolCall[] = t.calls.map((c, i) => ({ id: `${this.kind}_${turn}_${i}`, name: c.name, arguments: c.arguments }));
    if (req.signal.aborted) throw req.signal.reason;
    return { content: t.content, tool_calls: calls, latencyMs: performance.now() - started };
  }
}
