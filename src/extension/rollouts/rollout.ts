import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import { runPolicy } from "./engine";
import { meanReward } from "../../core/app/verdict";
import type { TaskOutcome } from "./outcome";

/** A task's result under the configured policy: mean reward over its samples against the threshold. */
export interface TaskRollout {
  task: string;
  reward: number | null;
  passed: boolean;
  outcomes: TaskOutcome[];
}

/** Rolls out the configured policy (settings) on tasks; throws with the reason when no policy is configured. */
export async function rolloutTasks(
  ctx: ExtensionCtx,
  env: Environment,
  tasks: string[] | undefined,
  signal: AbortSignal,
): Promise<{ rollouts: TaskRollout[]; runDir: string }> {
  const policy = ctx.settings.policy();
  if (!policy.ok) throw new Error(`cannot roll out: ${policy.reason}`);
  const run = await runPolicy(ctx, env, policy.policy, { ...(tasks ? { tasks } : {}), k: ctx.settings.samples(), signal });
  // A cancelled run returns with its rollouts ended `cancelled`: that is no verdict on the tasks.
  signal.throwIfAborted();
  const threshold = ctx.settings.passThreshold();
  const ids = tasks ?? env.tasks.map((t) => t.id);
  const at = new Date().toISOString();
  const rollouts = ids.map((id) => {
    const outcomes = run.outcomes.filter((o) => o.task === id);
    const reward = meanReward(outcomes);
    const file = outcomes[outcomes.length - 1]?.file;
    const passed = reward !== null && reward >= threshold;
    ctx.results.update(env.dir, id, {
      rollout: { reward, passed, at, ...(file ? { trajectory: file } : {}) },
      ...(file ? { lastTrajectory: file } : {}),
    });
    return { task: id, reward, passed, outcomes };
  });
  return { rollouts, runDir: run.runDir };
}
