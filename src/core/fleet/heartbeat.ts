import type { RunnerStatus } from "../remote/api";
import type { PoolMember } from "./pool-config";

export type MemberState = "unknown" | "up" | "down" | "stalled";

/** What a pool knows of one member: its last answer and whether it is still up. */
export interface MemberHealth {
  name: string;
  url: string;
  state: MemberState;
  /** ms since the epoch of the last answer to /v1/status. */
  last_ok?: number;
  last_error?: string;
  status?: RunnerStatus;
}

/**
 * Asks every member for `/v1/status` over and over, each on its own loop, so one runner
 * that hangs (a stopped process accepts connections and never answers) delays no other.
 * A member is down once its last answer is older than the heartbeat deadline.
 */
export class Heartbeats {
  private readonly health = new Map<string, MemberHealth>();
  private readonly stopped = new AbortController();
  private readonly started = Date.now();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly members: readonly PoolMember[],
    private readonly deadlineMs: number,
  ) {
    for (const m of members) this.health.set(m.name, { name: m.name, url: m.url, state: "unknown" });
  }

  start(): void {
    // A few answers per deadline; each ask gives up at half the deadline.
    const every = Math.max(100, Math.min(2000, this.deadlineMs / 5));
    const timeout = Math.max(200, Math.min(5000, this.deadlineMs / 2));
    this.loops = this.members.map(async (m) => {
      while (!this.stopped.signal.aborted) {
        const h = this.health.get(m.name);
        if (!h) return;
        try {
          h.status = await m.client.status(timeout);
          h.last_ok = Date.now();
          delete h.last_error;
        } catch (e) {
          h.last_error = (e as Error).message;
        }
        await new Promise<void>((r) => {
          const wake = () => {
            clearTimeout(t);
            r();
          };
          const t = setTimeout(() => {
            this.stopped.signal.removeEventListener("abort", wake);
            r();
          }, every);
          this.stopped.signal.addEventListener("abort", wake, { once: true });
        });
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    await Promise.all(this.loops);
  }

  /** Answered at least once (or was given up on): placement can count on knowing it. */
  settled(name: string, now = Date.now()): boolean {
    const h = this.health.get(name);
    return h?.last_ok !== undefined || now - this.started > this.deadlineMs;
  }

  isDown(name: string, now = Date.now()): boolean {
    const h = this.health.get(name);
    if (!h) return true;
    return now - (h.last_ok ?? this.started) > this.deadlineMs;
  }

  get(name: string): MemberHealth | undefined {
    return this.health.get(name);
  }

  /** Every member's health as of now; `stalled` names members this job gave up on for stalling. */
  snapshot(stalled: ReadonlySet<string> = new Set(), now = Date.now()): MemberHealth[] {
    return [...this.health.values()].map((h) => ({
      ...h,
      state: this.isDown(h.name, now)
        ? h.last_ok === undefined && !this.settled(h.name, now)
          ? "unknown"
          : "down"
        : stalled.has(h.name)
          ? "stalled"
          : "up",
    }));
  }
}

/** One look at every member of a pool (the Runners view, `rlenv pool status`): up with its status, or down with why. */
export async function probePool(members: readonly PoolMember[], timeoutMs = 3000): Promise<MemberHealth[]> {
  return Promise.all(
    members.map(async (m): Promise<MemberHealth> => {
      try {
        const status = await m.client.status(timeoutMs);
        return { name: m.name, url: m.url, state: "up", last_ok: Date.now(), status };
      } catch (e) {
        return { name: m.name, url: m.url, state: "down", last_error: (e as Error).message };
      }
    }),
  );
}
