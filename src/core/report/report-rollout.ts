import type { EndEvent, RewardComponent, RewardEvent, StartEvent, TrajectoryEvent } from "../schema/trajectory";

/** One rollout as the readiness report needs it, read back from its trajectory. */
export interface ReportRollout {
  task: string;
  sample: number;
  /** The end event's status, or `interrupted` when the trajectory has none. */
  status: string;
  /** Ended on an infrastructure failure after every retry: never a score. */
  infra: boolean;
  reward: number | null;
  reason?: string | undefined;
  components: readonly RewardComponent[];
  turns: number | null;
  usage: EndEvent["usage"] | null;
  timings: EndEvent["timings"] | null;
  observations: number;
  observationsTruncated: number;
}

/**
 * What a rollout's trajectory holds that the report reads: its first start event, its last end and
 * reward events, whether an error event was the infrastructure's, and its observations counted.
 * `rlenv report` gathers these streaming a file (RolloutFacts.add); the viewer's index gathers them
 * as it indexes the file; both hand them to reportRolloutOf, so the two cannot read a rollout apart.
 */
export interface RolloutEvents {
  start: StartEvent | null;
  end: EndEvent | null;
  reward: RewardEvent | null;
  infraError: boolean;
  observations: number;
  observationsTruncated: number;
}

/** Gathers a rollout's RolloutEvents one event at a time, in file order. */
export class RolloutFacts implements RolloutEvents {
  start: StartEvent | null = null;
  end: EndEvent | null = null;
  reward: RewardEvent | null = null;
  infraError = false;
  observations = 0;
  observationsTruncated = 0;

  add(e: TrajectoryEvent): void {
    if (e.type === "start") this.start ??= e;
    else if (e.type === "end") this.end = e;
    else if (e.type === "reward") this.reward = e;
    else if (e.type === "error" && e.infra) this.infraError = true;
    else if (e.type === "observation") {
      this.observations++;
      if (e.truncated) this.observationsTruncated++;
    }
  }
}

/** The report's view of one rollout; null without a start event (such a rollout says nothing). */
export function reportRolloutOf(ev: RolloutEvents): ReportRollout | null {
  const { start, end, reward } = ev;
  if (!start) return null;
  return {
    task: start.task.id,
    sample: start.sample,
    status: end ? end.status : "interrupted",
    // As endedOnInfra: an error end with an infrastructure error in the trajectory.
    infra: end !== null && end.status === "error" && ev.infraError,
    reward: end ? end.reward : null,
    reason: end?.reason,
    components: reward ? reward.components : [],
    turns: end ? end.turns : null,
    usage: end ? end.usage : null,
    timings: end ? end.timings : null,
    observations: ev.observations,
    observationsTruncated: ev.observationsTruncated,
  };
}
