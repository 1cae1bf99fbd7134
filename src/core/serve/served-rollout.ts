import type { LoadedTask } from "../model/environment";
import type { RunRolloutOptions } from "../rollout/rollout-types";
import type { ServedEnvironment } from "./serve-context";

/** What the protocol brings to an episode: who plays it, and how it is watched, metered and stopped. */
export type EpisodeSide = Pick<RunRolloutOptions, "policy"> &
  Partial<Pick<RunRolloutOptions, "seed" | "signal" | "hooks" | "meter" | "resume">>;

/**
 * The engine's options for one new episode of a served environment: its next rollout id and
 * trajectory file, and the environment's shared provider (warm pool), domain and tool set. Every
 * protocol (OpenEnv sessions, NeMo Gym's /run, /v1/rollouts) builds its rollout here, so an engine
 * option added for served episodes reaches all of them at once.
 */
export function servedRollout(served: ServedEnvironment, task: LoadedTask, side: EpisodeSide): RunRolloutOptions {
  const { rolloutId, sample, file } = served.nextRollout(task);
  return {
    env: served.env,
    task,
    sandboxProvider: served.provider,
    domain: served.domain,
    toolset: served.toolset,
    runId: served.runId,
    rolloutId,
    sample,
    file,
    ...side,
  };
}
