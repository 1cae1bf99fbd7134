import { randomUUID } from "node:crypto";
import type { ServedEnvironments } from "./serve-context";
import { ServedPlay } from "./served-play";
import {
  type ResetRequest,
  ServeError,
  type ServedObservation,
  type ServedState,
  type ServedToolCall,
  type SessionHandle,
} from "./session-types";

export interface ServedSessionOptions {
  id: string;
  protocol: string;
  environments: ServedEnvironments;
  /** The server's shutdown. */
  signal: AbortSignal;
  /** Opens `n` more sessions in the registry (capacity checked for all of them first), for a fork. */
  spawn(n: number): ServedSession[];
}

/**
 * One client's session: at most one episode at a time (a reset ends the open one, cancelled:
 * never a reward). Its episodes are played by the engine's loop (ServedPlay); the protocols
 * translate their messages into these calls. Calls of one session run one at a time.
 */
export class ServedSession implements SessionHandle {
  readonly id: string;
  /** When the session was last used (the idle reaper's clock); a call in flight keeps it alive. */
  lastUsed = Date.now();
  private inFlight = 0;
  private play: ServedPlay | null = null;
  private forkedFrom: ServedState["forked_from"] | undefined;
  private closed = false;

  constructor(private readonly o: ServedSessionOptions) {
    this.id = o.id;
  }

  get protocol(): string {
    return this.o.protocol;
  }

  /** Idle: no call in flight, and none for `ms`. */
  idleFor(ms: number, now = Date.now()): boolean {
    return this.inFlight === 0 && now - this.lastUsed >= ms;
  }

  reset(req: ResetRequest): Promise<ServedObservation> {
    return this.use(async () => {
      await this.endPlay();
      const { environments } = this.o;
      const served = environments.get(req.environment);
      const task = environments.pickTask(served, req.task_id, req.seed);
      this.forkedFrom = undefined;
      this.play = new ServedPlay({
        served,
        task,
        episodeId: req.episode_id ?? randomUUID(),
        protocol: this.o.protocol,
        ...(req.seed !== undefined ? { seed: req.seed } : {}),
        signal: this.o.signal,
      });
      return this.observed(await this.play.observe());
    });
  }

  step(calls: ServedToolCall[], assistantText: string | null = null): Promise<ServedObservation> {
    return this.use(async () => {
      if (calls.length === 0) throw new ServeError("invalid", "a step needs at least one tool call", "tool_calls");
      return this.observed(await this.openPlay().step(calls, assistantText));
    });
  }

  finish(finalText: string | null): Promise<ServedObservation> {
    return this.use(async () => this.observed(await this.openPlay().finish(finalText)));
  }

  state(): ServedState {
    this.lastUsed = Date.now();
    const p = this.play;
    return {
      episode_id: p?.o.episodeId ?? null,
      step_count: p?.stepCount ?? 0,
      environment: p?.o.served.name ?? null,
      task_id: p?.o.task.id ?? null,
      done: p ? p.over : false,
      ...(this.forkedFrom ? { forked_from: this.forkedFrom } : {}),
    };
  }

  fork(n: number): Promise<SessionHandle[]> {
    return this.use(async () => {
      if (!Number.isInteger(n) || n < 1 || n > 64) throw new ServeError("invalid", "fork makes 1 to 64 episodes", "n");
      const parent = this.openPlay();
      const resume = await parent.forkPoint();
      const children = this.o.spawn(n);
      await Promise.all(
        children.map((child) =>
          child.startFork(parent, {
            ...resume,
            messages: [...resume.messages],
            files: { ...resume.files },
          }),
        ),
      );
      return children;
    });
  }

  /** A fork's episode: the parent's task, continued from its state in a sandbox of its own. */
  private async startFork(parent: ServedPlay, resume: NonNullable<ConstructorParameters<typeof ServedPlay>[0]["resume"]>): Promise<void> {
    this.forkedFrom = { episode_id: parent.o.episodeId, turn: resume.turn };
    this.play = new ServedPlay({ ...parent.o, episodeId: randomUUID(), resume, signal: this.o.signal });
    await this.play.ready();
    this.play.skipHistory();
  }

  /** The first observation of a fork's episode (the conversation so far and its tools), for the client that takes it over. */
  async forkObservation(): Promise<ServedObservation> {
    const p = this.openPlay();
    return this.observed(await p.observe(true));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.endPlay();
  }

  private openPlay(): ServedPlay {
    if (!this.play) throw new ServeError("no_episode", "no episode: reset first", "reset");
    return this.play;
  }

  /** An episode the machinery failed is the protocol's error, never a reward (its trajectory says infra). */
  private observed(obs: ServedObservation): ServedObservation {
    if (obs.score?.infra)
      throw new ServeError("infra", `the episode failed on the machinery, not the agent: ${obs.score.reason ?? "unknown"}`);
    return obs;
  }

  private async endPlay(): Promise<void> {
    const p = this.play;
    this.play = null;
    if (p && !p.over) await p.cancel();
  }

  private async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new ServeError("closed", "the session is closed");
    this.inFlight++;
    this.lastUsed = Date.now();
    try {
      return await fn();
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }
}
