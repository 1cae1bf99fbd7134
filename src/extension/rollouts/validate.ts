import { verdictLine } from "../../core/app/verdict";
import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import { validateWithEngine } from "./engine";
import type { TaskOutcome, TaskValidation } from "./outcome";

/**
 * Validates tasks by rollouts (core/app's validateEnvironment: oracle and nop together, the
 * CLI's verdict). Records each verdict for the views.
 */
export async function validateTasks(
  ctx: ExtensionCtx,
  env: Environment,
  tasks: string[] | undefined,
  signal: AbortSignal,
): Promise<{ validations: TaskValidation[]; runDirs: string[] }> {
  const run = await validateWithEngine(ctx, env, tasks, signal);
  // A cancelled run returns with its rollouts ended `cancelled`: that is no verdict on the tasks.
  signal.throwIfAborted();
  const byTask = (list: TaskOutcome[]) => new Map(list.map((o) => [o.task, o]));
  const o = byTask(run.outcomes.oracle);
  const n = byTask(run.outcomes.nop);
  const { min } = env.manifest.validation.oracle;
  const { max } = env.manifest.validation.nop;
  const at = new Date().toISOString();
  const validations = run.verdicts.map((v): TaskValidation => {
    const oracle = o.get(v.id);
    const nop = n.get(v.id);
    const reason = verdictLine(v, min, max);
    const last = oracle?.file ?? nop?.file;
    ctx.results.update(env.dir, v.id, {
      validation: { passed: v.ok && !v.skipped, oracle: v.oracle, nop: v.nop, at, message: reason },
      ...(last ? { lastTrajectory: last } : {}),
    });
    return {
      task: v.id,
      passed: v.ok && !v.skipped,
      ...(v.skipped && v.ok ? { skipped: v.skipped } : {}),
      ...(oracle ? { oracle } : {}),
      ...(nop ? { nop } : {}),
      reason,
    };
  });
  return { validations, runDirs: run.runDirs };
}
