import type { Policy, PolicyReply, PolicyRequest } from "../policy/types";

/** A turn the episode's loop is waiting on: what it asked with, and how to answer it. */
interface PendingTurn {
  turn: number;
  answer(reply: PolicyReply): void;
}

/**
 * The agent's side of a served episode: the engine's own policy loop (runRollout) asks it for
 * each turn, and it waits until the client sends one (a step's tool calls, or a final word).
 * Inverting the control this way keeps one engine: a served episode is played, stopped at
 * max turns, timed out, staged and scored by exactly the code `rlenv run` uses.
 * The loop's signal (the rollout's deadline, the session's close) ends a wait as cancelled.
 */
export class ClientTurns implements Policy {
  readonly kind = "served";
  private pending: PendingTurn | null = null;
  private waiters: Array<() => void> = [];

  constructor(
    readonly protocol: string,
    readonly model?: string,
  ) {}

  get params(): Record<string, unknown> {
    return { protocol: this.protocol };
  }

  /** Called by the loop: parks until the client answers this turn. */
  next(req: PolicyRequest): Promise<PolicyReply> {
    return new Promise<PolicyReply>((resolve, reject) => {
      const onAbort = () => {
        this.pending = null;
        reject(req.signal.reason ?? new Error("cancelled"));
      };
      if (req.signal.aborted) return onAbort();
      req.signal.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        turn: req.turn,
        answer: (reply) => {
          req.signal.removeEventListener("abort", onAbort);
          this.pending = null;
          resolve(reply);
        },
      };
      this.wake();
    });
  }

  /** The turn the loop waits on now, if it waits. */
  get waitingTurn(): number | null {
    return this.pending?.turn ?? null;
  }

  /** Answers the waiting turn; false when the loop is not waiting (it ended, or is still playing). */
  answer(reply: PolicyReply): boolean {
    const p = this.pending;
    if (!p) return false;
    p.answer(reply);
    return true;
  }

  /** Resolves once the loop waits for a turn (or `ended` settles first, whichever comes first). */
  waitForTurn(ended: Promise<unknown>): Promise<void> {
    if (this.pending) return Promise.resolve();
    return Promise.race([
      new Promise<void>((resolve) => this.waiters.push(resolve)),
      ended.then(
        () => undefined,
        () => undefined,
      ),
    ]);
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }
}
