import { openEpisode } from "./open-episode";
import { Rollout } from "./rollout";
import type { RolloutResult, RunRolloutOptions } from "./rollout-types";

export type { PendingToolCall, RolloutHooks, RolloutMeter, RolloutResult, RolloutResume, RunRolloutOptions } from "./rollout-types";

/**
 * One agent episode: reset a sandbox (lazily, on first use), render the prompts, loop
 * policy → tool calls → observations until submit, max_turns, a timeout or
 * cancellation, then verify and score. Every event goes to the trajectory as it happens;
 * the file always ends with `end`, whatever happened, and the episode lets go of the sandbox,
 * the deadline, the listener and its file even when something throws.
 */
export async function runRollout(o: RunRolloutOptions): Promise<RolloutResult> {
  const t0 = performance.now();
  await using episode = await openEpisode(o, t0);
  await new Rollout(o, episode).play();
  await episode.score();
  // Awaited here, not returned as a promise: the episode is disposed when this function's body is left.
  return await episode.close();
}
