import { rolloutFiles } from "../runs/run-dir";
import { scanTrajectory } from "../runs/trajectory-reader";
import type { EndEvent, RewardComponent, RewardEvent, StartEvent } from "../schema/trajectory";

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

/** Every rollout of a run folder, or of the files given (those without a start event are skipped: they say nothing). */
export function readReportRollouts(runDir: string, files: readonly string[] = rolloutFiles(runDir)): ReportRollout[] {
  return files.flatMap((file) => {
    // Streamed: only the events the report reads are kept, so a rollout of any size can be reported.
    let start: StartEvent | undefined;
    let ended: EndEvent | null = null;
    let reward: RewardEvent | undefined;
    let infraError = false;
    let observations = 0;
    let observationsTruncated = 0;
    scanTrajectory(file, (e) => {
      if (e.type === "start") start ??= e;
      else if (e.type === "end") ended = e;
      else if (e.type === "reward") reward = e;
      else if (e.type === "error" && e.infra) infraError = true;
      else if (e.type === "observation") {
        observations++;
        if (e.truncated) observationsTruncated++;
      }
    });
    if (!start) return [];
    const end = ended as EndEvent | null;
    return [
      {
        task: start.task.id,
        sample: start.sample,
        status: end ? end.status : "interrupted",
        // As endedOnInfra: an error end with an infrastructure error in the trajectory.
        infra: end !== null && end.status === "error" && infraError,
        reward: end ? end.reward : null,
        reason: end?.reason,
        components: reward ? reward.components : [],
        turns: end ? end.turns : null,
        usage: end ? end.usage : null,
        timings: end ? end.timings : null,
        observations,
        observationsTruncated,
      },
    ];
  });
}
