import { randomUUID } from "node:crypto";
import type { ServedEnvironments, ServeMetrics, SessionRegistry } from "./serve-context";
import { ServedSession } from "./served-session";
import { ServeError } from "./session-types";

export interface RegistryOptions {
  environments: ServedEnvironments;
  metrics: ServeMetrics;
  /** --max-sessions: a session past it is refused at once with the protocol's capacity error. */
  maxSessions: number;
  /** --idle-timeout in ms (0: never): a session unused this long is closed with its sandbox. */
  idleTimeoutMs: number;
  /** The server's shutdown. */
  signal: AbortSignal;
}

/**
 * The sessions of one server. Capacity is checked when a session opens (never a wait); an idle
 * reaper closes sessions nobody used for --idle-timeout, their episodes cancelled and sandboxes
 * released; closeAll is the shutdown's. Sessions of every protocol count against one limit.
 */
export class Sessions implements SessionRegistry {
  /** Every session that holds (or may still hold) a sandbox: those closing stay until their close ends. */
  private readonly open_ = new Map<string, ServedSession>();
  /** The closes under way, by session: a second close (a client's, the reaper's, the shutdown's) waits on the first. */
  private readonly closing = new Map<string, Promise<void>>();
  private readonly reaper: NodeJS.Timeout | undefined;

  constructor(private readonly o: RegistryOptions) {
    if (o.idleTimeoutMs > 0) {
      // Checked a few times per timeout: a session is reaped at most a quarter timeout late.
      const every = Math.max(50, Math.min(5000, Math.floor(o.idleTimeoutMs / 4)));
      this.reaper = setInterval(() => void this.reap(), every);
      this.reaper.unref();
    }
  }

  get active(): number {
    return this.open_.size;
  }

  get max(): number {
    return this.o.maxSessions;
  }

  open(origin: { protocol: string }): ServedSession {
    const [s] = this.openMany(origin.protocol, 1);
    return s as ServedSession;
  }

  /** A session that takes requests: one being closed takes none. */
  get(id: string): ServedSession | undefined {
    return this.closing.has(id) ? undefined : this.open_.get(id);
  }

  touch(id: string): void {
    const s = this.open_.get(id);
    if (s) s.lastUsed = Date.now();
  }

  /**
   * Closes a session: its episode cancelled, its trajectory's end written, its sandbox released.
   * The session keeps its place (and counts against --max-sessions) until all that is done, so a
   * new session never finds the old one's sandbox still there, and the shutdown, which waits on
   * every close, never exits while the reaper's is half way.
   */
  close(id: string, why: "client" | "idle" | "shutdown" | "error" = "client"): Promise<void> {
    const under = this.closing.get(id);
    if (under) return under;
    const s = this.open_.get(id);
    if (!s) return Promise.resolve();
    const done = s
      .close()
      .catch(() => {})
      .then(() => this.o.metrics.sessionClosed(s.protocol, why))
      .finally(() => {
        this.open_.delete(id);
        this.closing.delete(id);
      });
    this.closing.set(id, done);
    return done;
  }

  /** Closes every session (SIGTERM), those already closing included: each episode cancelled, each sandbox released. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.open_.keys()].map((id) => this.close(id, "shutdown")));
  }

  stop(): void {
    if (this.reaper) clearInterval(this.reaper);
  }

  /** `n` sessions at once, or none: the capacity error names how many are open and the limit. */
  private openMany(protocol: string, n: number): ServedSession[] {
    if (this.o.signal.aborted) throw new ServeError("closed", "the server is shutting down");
    if (this.open_.size + n > this.o.maxSessions) {
      this.o.metrics.error(protocol, "capacity");
      throw new ServeError(
        "capacity",
        `capacity reached: ${this.open_.size} of ${this.o.maxSessions} sessions are open${this.closing.size ? ` (${this.closing.size} closing, their sandboxes not yet released)` : ""}${n > 1 ? ` (${n} asked)` : ""}`,
        undefined,
        { active: this.open_.size, max: this.o.maxSessions },
      );
    }
    const made: ServedSession[] = [];
    for (let i = 0; i < n; i++) {
      const s = new ServedSession({
        id: randomUUID(),
        protocol,
        environments: this.o.environments,
        signal: this.o.signal,
        spawn: (k) => this.openMany(protocol, k),
      });
      this.open_.set(s.id, s);
      this.o.metrics.sessionOpened(protocol);
      made.push(s);
    }
    return made;
  }

  private async reap(): Promise<void> {
    const now = Date.now();
    const idle = [...this.open_.values()].filter((s) => !this.closing.has(s.id) && s.idleFor(this.o.idleTimeoutMs, now));
    await Promise.all(idle.map((s) => this.close(s.id, "idle")));
  }
}
