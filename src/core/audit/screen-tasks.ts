import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { PlannedTurn } from "../policy/scripted";
import type { SandboxProvider } from "../model/sandbox";
import type { AuditOptions } from "./audit-plan";
import { MutationWorkbench } from "./mutate-code";
import { candidateFiles, oracleScreenable, probeActions, replayScore, screenPlan, screenSolutions } from "./screen";

/**
 * A task's probes through the screen in a workbench of its own, after the gold (the screen must
 * score it as the oracle's rollout did): the ids of those the real verifiers scored 0.
 */
export async function screenProbes(
  provider: SandboxProvider,
  env: Environment,
  task: LoadedTask,
  items: Array<{ id: string; turns: PlannedTurn[] }>,
  reference: number | null,
  opts: AuditOptions,
): Promise<string[]> {
  if (opts.screen === false || reference === null || items.length === 0 || !(await oracleScreenable(env, task))) return [];
  let bench: MutationWorkbench | undefined;
  try {
    bench = await MutationWorkbench.open(provider, env, task, opts.signal);
    return await screenProbesIn(bench, env, task, items, reference, opts);
  } catch {
    return [];
  } finally {
    await bench?.close();
  }
}

/** screenProbes in a workbench already open (the one where the task's mutants were made and screened). */
export async function screenProbesIn(
  bench: MutationWorkbench,
  env: Environment,
  task: LoadedTask,
  items: Array<{ id: string; turns: PlannedTurn[] }>,
  reference: number | null,
  opts: AuditOptions,
): Promise<string[]> {
  if (opts.screen === false || reference === null || items.length === 0 || !(await oracleScreenable(env, task))) return [];
  const plan = await screenPlan(env, task);
  if ("unscreenable" in plan) return [];
  const stepMs = env.manifest.sandbox.timeouts.step * 1000;
  const playable = items.flatMap((i) => {
    const actions = probeActions(i.turns, stepMs);
    return actions ? [{ id: i.id, actions }] : [];
  });
  if (playable.length === 0) return [];
  try {
    const gold = candidateFiles(bench.goldSolution());
    const runs = await bench.screen(plan, [{ files: gold }, ...playable.map((p) => ({ files: {}, actions: p.actions }))]);
    if ("failed" in runs) return [];
    const [goldRuns, ...probeRuns] = runs;
    if (!goldRuns || (await replayScore(env, task, plan, goldRuns, bench)) !== reference) return [];
    const rejected: string[] = [];
    for (const [k, p] of playable.entries()) {
      const recorded = probeRuns[k];
      if (recorded && (await replayScore(env, task, plan, recorded, bench)) === 0) rejected.push(p.id);
    }
    return rejected;
  } catch {
    return [];
  }
}

/**
 * The oracle's N − 1 further runs on a backend as screen reruns in a workbench of its own: the
 * rewards, or null when the screen could not judge them all (the caller plays rollouts instead).
 */
export async function rerunOracle(
  provider: SandboxProvider,
  env: Environment,
  task: LoadedTask,
  opts: AuditOptions,
  reference: number | null,
): Promise<Array<number | null> | null> {
  if (reference === null) return null;
  let bench: MutationWorkbench | undefined;
  try {
    bench = await MutationWorkbench.open(provider, env, task, opts.signal);
    const gold = bench.goldSolution();
    const s = await screenSolutions(
      bench,
      env,
      task,
      gold,
      Array.from({ length: opts.runs - 2 }, () => gold),
    );
    if ("skipped" in s) return null;
    const rewards = [s.gold, ...s.rewards];
    return rewards.some((r) => r === null) ? null : rewards;
  } catch {
    return null;
  } finally {
    await bench?.close();
  }
}
