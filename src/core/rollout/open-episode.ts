import { Episode } from "./episode";
import { type EpisodeTrajectory, MemoryTrajectory } from "./memory-trajectory";
import type { EpisodeOptions } from "./rollout-types";
import { StagedEpisode } from "./staged-episode";
import { TrajectoryWriter } from "./trajectory-writer";

/**
 * The episode a task is played as: a multi-stage task's StagedEpisode (a fork of one plays on
 * as a one-stage episode, from where it was), else the one-stage Episode. Its trajectory goes to
 * `o.file` (a new file: one per rollout), or stays in memory when there is none.
 */
export async function openEpisode(o: EpisodeOptions, t0 = performance.now()): Promise<Episode | StagedEpisode> {
  const trajectory: EpisodeTrajectory = o.file ? await TrajectoryWriter.create(o.file) : new MemoryTrajectory();
  return o.task.stages && !o.resume ? new StagedEpisode(o, trajectory, o.task.stages, t0) : new Episode(o, trajectory, t0);
}
