import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Environment } from "../model/environment";
import { rewardHash } from "../reward/reward-hash";
import { makeDirs } from "../runs/make-dirs";
import { ROLLOUTS_DIR, RUN_FILE, writeJsonAtomic } from "../runs/run-dir";
import { runOwner } from "../runs/run-state";
import type { RunConfig, RunRecord } from "../schema/run";

/**
 * Starts a run's record, `run.json`, in its folder: a new run's, or a resumed run's with its
 * owner replaced and the resume noted. The owner (pid and start time) lets any reader tell a
 * run whose process died from a live one. Refuses a run id that exists, and a resumed run
 * whose environment has changed since it started.
 */
export function openRunRecord(o: {
  env: Environment;
  config: RunConfig;
  runId: string;
  runDir: string;
  runsDir: string;
  resumed: RunRecord | null;
}): RunRecord {
  const { env, resumed, runId, runDir } = o;
  if (resumed && resumed.env.hash !== env.hash) {
    throw new Error(
      `run ${runId} was made with ${resumed.env.name} at hash ${resumed.env.hash}; ${env.dir} is now ${env.hash}: a resumed run must finish on the environment it started on`,
    );
  }
  if (!resumed && existsSync(path.join(runDir, RUN_FILE))) throw new Error(`run ${runId} already exists in ${o.runsDir}`);
  makeDirs(path.join(runDir, ROLLOUTS_DIR));
  let record: RunRecord;
  if (resumed) {
    const { ended: _ended, ...rest } = resumed;
    record = { ...rest, status: "running", owner: runOwner(), resumed: [...(resumed.resumed ?? []), new Date().toISOString()] };
  } else {
    record = {
      id: runId,
      created: new Date().toISOString(),
      status: "running",
      env: { name: env.manifest.name, hash: env.hash, domain: env.manifest.domain, path: env.dir, reward_hash: rewardHash(env) },
      config: o.config,
      host: os.hostname(),
      owner: runOwner(),
    };
  }
  writeJsonAtomic(path.join(runDir, RUN_FILE), record);
  return record;
}

/** Writes the run's record with its final status and end time, and returns it. */
export function closeRunRecord(runDir: string, record: RunRecord, status: RunRecord["status"]): RunRecord {
  const final: RunRecord = { ...record, status, ended: new Date().toISOString() };
  writeJsonAtomic(path.join(runDir, RUN_FILE), final);
  return final;
}
