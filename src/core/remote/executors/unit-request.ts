import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RunRequest } from "../../schema/run-request";
import type { RunConfig } from "../../schema/run";
import type { WorkUnit } from "../api";

/**
 * The run request of one work unit: the job's run config as it is (every field, not only
 * those a flag spells), narrowed to the unit's tasks/samples or shard, writing into the
 * unit's own runs folder; `policyBaseUrl`: the policy server the job started, if any.
 */
export function unitRequest(
  envDir: string,
  runsDir: string,
  config: RunConfig,
  unit: Pick<WorkUnit, "tasks" | "k" | "shard" | "samples">,
  policyBaseUrl?: string,
): RunRequest {
  const { tasks: _tasks, samples: _samples, shard: _shard, ...rest } = config;
  // A unit's own samples (a resumed pool shard's remainder) replace the job's, and with them k.
  const samples = unit.samples ?? config.samples;
  const tasks = unit.tasks ?? config.tasks;
  const shard = unit.shard ?? config.shard;
  const baseUrl = policyBaseUrl ?? config.policy.base_url;
  return {
    env_dir: envDir,
    runs_dir: runsDir,
    config: {
      ...rest,
      policy: { ...config.policy, ...(baseUrl ? { base_url: baseUrl } : {}) },
      k: unit.samples ? config.k : (unit.k ?? config.k),
      ...(tasks && tasks.length > 0 ? { tasks } : {}),
      ...(shard ? { shard } : {}),
      ...(samples ? { samples } : {}),
    },
  };
}

/** Where a unit's request lies: beside its runs folder (which holds only run folders). */
export function unitRequestFile(runsDir: string): string {
  return `${runsDir}.request.json`;
}

/** Writes the unit's request beside its runs folder; the `rlenv` arguments that run it. */
export function writeUnitRequest(request: RunRequest, file = unitRequestFile(request.runs_dir)): string[] {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(RunRequest.parse(request), null, 2)}\n`);
  return ["run", "--request", file];
}

/**
 * Whether a unit's `rlenv run` got to the end: it exits 1 when some rollouts ended in
 * error, which are recorded in their trajectories, so a written summary.json is the mark.
 */
export function unitFinishedRun(runsDir: string): boolean {
  try {
    return readdirSync(runsDir).some((d) => existsSync(path.join(runsDir, d, "summary.json")));
  } catch {
    return false;
  }
}
