import { Rollout } from "./rollout";
import { RolloutScope } from "./rollout-scope";
import type { RolloutResult, RunRolloutOptions } from "./rollout-types";
import { TrajectoryWriter } from "./trajectory-writer";

export type { PendingToolCall, RolloutHooks, RolloutMeter, RolloutResult, RolloutResume, RunRolloutOptions } from "./rollout-types";

/**
 * One agent episode: reset a sandbox (lazily, on first use), render the prompts, loop
 * policy → tool calls → observations until submit, max_turns, a timeout or
 * cancellation, then verify and score. Every event goes to the trajectory as it happens;
 * the file always ends with `end`, whatever happened, and the scope lets go of the sandbox,
 * the deadline and the listener even when something throws.
 */
export async function runRollout(o: RunRolloutOptions): Promise<RolloutResult> {
  const t0 = performance.now();
  const writer = await TrajectoryWriter.create(o.file);
  await using scope = new RolloutScope({
    env: o.env,
    task: o.task,
    sandboxProvider: o.sandboxProvider,
    runId: o.runId,
    rolloutId: o.rolloutId,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.resume ? { files: o.resume.files } : {}),
  });
  const rollout = new Rollout(o, writer, scope, t0);
  try {
    await rollout.play();
    await rollout.verify();
    // Awaited here, not returned as a promise: the scope is disposed when this function's body is left.
    return await rollout.close();
  } finally {
    // A rollout that threw (its trajectory could not be written) lets go of its file too.
    if (!writer.closed) await writer.close().catch(() => {});
  }
}
