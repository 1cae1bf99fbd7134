import type { Environment } from "../../core/environment/load-environment";
import type { ExtensionCtx } from "../context";
import { runPolicy } from "./engine";
import { judgeValidation, type TaskOutcome, type TaskValidation } from "./judge";

/**
 * Validates tasks by rollouts: the oracle must reach validation.oracle.min and the nop
 * policy must stay at or under validation.nop.max. Records each verdict for the views.
 */
export async function validateTasks(
  ctx: ExtensionCtx,
  env: Environment,
  tasks: string[] | undefined,
  signal: AbortSignal,
): Promise<{ validations: TaskValidation[]; runDirs: string[] }> {
  const oracle = await runPolicy(ctx, env, { kind: "oracle" }, { ...(tasks ? { tasks } : {}), signal });
  signal.throwIfAborted();
  const nop = await runPolicy(ctx, env, { kind: "nop" }, { ...(tasks ? { tasks } : {}), signal });
  signal.throwIfAborted();
  const byTask = (list: TaskOutcome[]) => new Map(list.map((o) => [o.task, o]));
  const o = byTask(oracle.outcomes);
  const n = byTask(nop.outcomes);
  const ids = tasks ?? env.tasks.map((t) => t.id);
  const at = new Date().toISOString();
  const validations = ids.map((id) => {
    const v = judgeValidation(id, o.get(id), n.get(id), env.manifest.validation.oracle.min, env.manifest.validation.nop.max);
    const last = v.oracle?.file ?? v.nop?.file;
    ctx.results.update(env.dir, id, {
      validation: { passed: v.passed, oracle: v.oracle?.reward ?? null, nop: v.nop?.reward ?? null, at, message: v.reason },
      ...(last ? { lastTrajectory: last } : {}),
    });
    return v;
  });
  return { validations, runDirs: [oracle.runDir, nop.runDir] };
}
