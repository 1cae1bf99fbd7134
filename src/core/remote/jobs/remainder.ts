import path from "node:path";
import { loadEnvironment } from "../../environment/load-environment";
import type { JobRecord, WorkUnit } from "../api";
import type { ExecutionContext } from "./executor";
import { hasFinished, type RolloutFileState, RolloutWatcher } from "./rollout-watch";
import { rolloutId } from "../../rollout/ids";
import { samplesOf } from "../../rollout/run-environment";

/** Task ids the job covers, in the environment's order. */
export function jobTaskIds(envDir: string, job: JobRecord): string[] {
  const { env, problems } = loadEnvironment(envDir);
  if (!env) throw new Error(`environment in ${envDir} no longer loads: ${problems[0]?.message ?? "unknown problem"}`);
  const c = job.spec.config;
  const wanted = c.tasks?.length ? c.tasks : c.samples ? Object.keys(c.samples) : undefined;
  const ids = env.tasks.map((t) => t.id);
  return wanted && wanted.length > 0 ? ids.filter((id) => wanted.includes(id)) : ids;
}

/**
 * Rollout files of every unit whose output the merged run keeps, as the merge will see
 * them; `known` is a live watcher's view (saves reading every file again).
 */
export function keptRollouts(job: JobRecord, unitDir: (u: WorkUnit) => string, known?: RolloutFileState[]): RolloutFileState[] {
  const units = job.units.filter((u) => u.keep !== "none");
  let all = known;
  if (!all) {
    const watcher = new RolloutWatcher(
      () => units.map((u) => ({ id: u.id, dir: unitDir(u) })),
      () => {},
    );
    watcher.scan();
    all = watcher.all();
  }
  const keepOf = new Map(units.map((u) => [u.id, u.keep]));
  return all.filter((r) => keepOf.get(r.unit) === "all" || hasFinished(r));
}

/**
 * Replaces the job's interrupted units by remainder units that cover exactly the
 * samples not yet finished: tasks grouped by how many samples they still miss, one
 * `rlenv run --tasks … -k m` per group. Finished rollouts are never run again.
 */
export function planRemainder(ctx: ExecutionContext): void {
  const job = ctx.job();
  const interrupted = job.units.filter((u) => u.state === "interrupted" && !u.superseded_by);
  if (interrupted.length === 0) return;
  // Interrupted output keeps only finished rollouts; the rest is redone.
  ctx.update((j) => {
    for (const u of j.units) if (u.state === "interrupted" && !u.superseded_by) u.keep = "finished";
  });
  const finished = new Map<string, number>();
  const finishedIds = new Set<string>();
  for (const r of keptRollouts(ctx.job(), (u) => ctx.unitRunsDir(u))) {
    if (hasFinished(r) && r.task) finished.set(r.task, (finished.get(r.task) ?? 0) + 1);
    if (hasFinished(r) && r.task !== undefined && r.sample !== undefined) finishedIds.add(rolloutId(r.task, r.sample));
  }
  // A job that names its samples (a pool's shard) is finished by sample number: `-k m` would renumber them.
  if (job.spec.config.samples) {
    const samples: Record<string, number[]> = {};
    for (const id of jobTaskIds(ctx.envDir, job)) {
      const missing = samplesOf(id, job.spec.config).filter((s) => !finishedIds.has(rolloutId(id, s)));
      if (missing.length > 0) samples[id] = missing;
    }
    const id = `u${job.units.length}`;
    const unit: WorkUnit | undefined = Object.keys(samples).length
      ? { id, tasks: Object.keys(samples), samples, state: "pending", attempts: 0, runs_dir: path.join("units", id), keep: "all" }
      : undefined;
    ctx.update((j) => {
      for (const u of j.units) if (u.state === "interrupted" && !u.superseded_by) u.superseded_by = unit?.id ?? "nothing (all finished)";
      if (unit) j.units.push(unit);
    });
    ctx.log(`resume: ${finishedIds.size} finished rollouts kept; ${Object.values(samples).flat().length} sample(s) to run again`);
    return;
  }
  const k = job.spec.config.k;
  const byMissing = new Map<number, string[]>();
  for (const id of jobTaskIds(ctx.envDir, job)) {
    const missing = k - (finished.get(id) ?? 0);
    if (missing > 0) byMissing.set(missing, [...(byMissing.get(missing) ?? []), id]);
  }
  const n = job.units.length;
  const added: WorkUnit[] = [...byMissing.entries()].map(([m, tasks], i) => ({
    id: `u${n + i}`,
    tasks,
    k: m,
    state: "pending",
    attempts: 0,
    runs_dir: path.join("units", `u${n + i}`),
    keep: "all",
  }));
  ctx.update((j) => {
    const replacement = added.map((a) => a.id).join(",") || "nothing (all finished)";
    for (const u of j.units) if (u.state === "interrupted" && !u.superseded_by) u.superseded_by = replacement;
    j.units.push(...added);
  });
  ctx.log(
    `resume: ${[...finished.values()].reduce((a, b) => a + b, 0)} finished rollouts kept; ${added.length} remainder unit(s) for ${[...byMissing.values()].flat().length} task(s)`,
  );
}
