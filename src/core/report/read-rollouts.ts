import { endedOnInfra, rolloutFiles } from "../runs/run-dir";
import { readTrajectory } from "../runs/trajectory-reader";
import type { EndEvent, RewardComponent } from "../schema/trajectory";

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
    const { events } = readTrajectory(file);
    const start = events.find((e) => e.type === "start");
    if (start?.type !== "start") return [];
    const end = events.findLast((e) => e.type === "end");
    const reward = events.findLast((e) => e.type === "reward");
    const observations = events.filter((e) => e.type === "observation");
    const ended = end?.type === "end" ? end : null;
    return [
      {
        task: start.task.id,
        sample: start.sample,
        status: ended ? ended.status : "interrupted",
        infra: ended !== null && endedOnInfra(events),
        reward: ended ? ended.reward : null,
        reason: ended?.reason,
        components: reward?.type === "reward" ? reward.components : [],
        turns: ended ? ended.turns : null,
        usage: ended ? ended.usage : null,
        timings: ended ? ended.timings : null,
        observations: observations.length,
        observationsTruncated: observations.filter((o) => o.type === "observation" && o.truncated).length,
      },
    ];
  });
}
