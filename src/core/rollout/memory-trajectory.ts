import type { TrajectoryEvent, TrajectoryEventInput } from "../schema/trajectory";
import { boundedLine, CLOSING_EVENTS, DEFAULT_TRAJECTORY_LIMITS, type TrajectoryLimits, TrajectoryLimitError } from "./trajectory-bounds";

/**
 * Where an episode's events go: the run folder's JSONL file (TrajectoryWriter), or memory
 * only (MemoryTrajectory) for a caller that keeps no run folder. Verifiers read `events`.
 */
export interface EpisodeTrajectory {
  readonly events: readonly TrajectoryEvent[];
  write(e: TrajectoryEventInput): TrajectoryEvent;
  readonly closed: boolean;
  close(): Promise<void>;
}

/**
 * An episode's events kept in memory, numbered and bounded as the file writer numbers and
 * bounds them, so that an episode played without a run folder ends (and scores) as one with.
 */
export class MemoryTrajectory implements EpisodeTrajectory {
  readonly events: TrajectoryEvent[] = [];
  private size = 0;
  private done = false;

  constructor(private readonly limits: TrajectoryLimits = DEFAULT_TRAJECTORY_LIMITS) {}

  write(e: TrajectoryEventInput): TrajectoryEvent {
    if (this.done) throw new Error("the episode's trajectory is already closed");
    const event = { ...e, seq: this.events.length, t: Date.now() } as TrajectoryEvent;
    const bytes = Buffer.byteLength(boundedLine(event, this.limits.maxEventBytes));
    // Past the size limit only the closing events go in, as in the file (see TrajectoryWriter).
    if (!CLOSING_EVENTS.has(event.type) && this.size + bytes > this.limits.maxBytes)
      throw new TrajectoryLimitError(`the trajectory reached its limit of ${this.limits.maxBytes} bytes: the rollout ends here`);
    this.size += bytes;
    this.events.push(event);
    if (event.type === "end") this.done = true;
    return event;
  }

  get closed(): boolean {
    return this.done;
  }

  async close(): Promise<void> {
    this.done = true;
  }
}
