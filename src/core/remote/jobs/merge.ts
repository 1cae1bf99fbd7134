import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { SUMMARY_FILE, summarizeRunDir, writeJsonAtomic } from "../../runs/run-dir";
import type { RunRecord, RunSummary } from "../../schema/run";
import type { JobRecord, WorkUnit } from "../api";
import { keptRollouts } from "./remainder";
import { hasFinished, type RolloutFileState } from "./rollout-watch";

/** The merged run folder of a job, as `rlenv pull` brings it home. */
export function mergedRunDir(jobDir: string): string {
  return path.join(jobDir, "run");
}

/**
 * What one runner process knows of a job's merged folder between merges, so that a
 * merge while the job runs (a pull follows it every 100 ms) touches only what changed.
 */
export interface MergeMemo {
  /** Merged rollout name → the unit file it is a hard link of (or a copy of, once ended). */
  linked: Map<string, string>;
  /** Every name in the merged rollouts folder (only merges write there), once listed. */
  present?: Set<string>;
  runJson?: string;
  firstRun?: RunRecord;
}

export function newMergeMemo(): MergeMemo {
  return { linked: new Map() };
}

/**
 * Brings the job's run folder up to date from its units' run folders: every kept
 * rollout file (copied again when it grew), and `run.json` for the whole job. Safe to
 * call while units still run; `final` also writes `summary.json`. `finished` names the
 * merged rollout files whose trajectories have ended for good (they no longer change).
 */
export function mergeRun(
  job: JobRecord,
  jobDir: string,
  version: string,
  final: boolean,
  known?: RolloutFileState[],
  memo: MergeMemo = newMergeMemo(),
): { rollouts: number; finished: string[] } {
  const runDir = mergedRunDir(jobDir);
  const outRollouts = path.join(runDir, "rollouts");
  const unitDir = (u: WorkUnit) => path.join(jobDir, u.runs_dir);
  const kept = keptRollouts(job, unitDir, known);
  const finished = shareOneUnitsRollouts(job, outRollouts, kept, memo)
    ? kept.filter(hasFinished).map((r) => r.name)
    : linkRollouts(outRollouts, kept, memo);
  writeRunJson(job, runDir, version, unitDir, memo);
  if (final) {
    const summary = singleUnitSummary(job, unitDir) ?? summarizeRunDir(runDir);
    const utilisation = meanUtilisation(job, unitDir);
    writeJsonAtomic(path.join(runDir, SUMMARY_FILE), utilisation ? { ...summary, utilisation } : summary);
  }
  return { rollouts: kept.length, finished };
}

/**
 * A job that one unit does whole (the local executor's, unless a runner restart split it)
 * needs no merge of its rollouts: the merged `rollouts` folder is a link to that unit's own,
 * made once, rather than a thousand hard links made one by one while the job runs. Once
 * another unit joins or the unit keeps only part of its output, the link goes and the
 * rollouts are merged file by file. True when the merged folder is (now) that link.
 */
function shareOneUnitsRollouts(job: JobRecord, outRollouts: string, kept: RolloutFileState[], memo: MergeMemo): boolean {
  const units = job.units.filter((u) => u.keep !== "none");
  const first = kept[0];
  const whole = units.length === 1 && units[0]?.keep === "all" && first !== undefined && kept.every((r) => r.dir === first.dir);
  let current: string | null = null;
  try {
    current = readlinkSync(outRollouts);
  } catch {
    // a folder, or nothing yet
  }
  const target = first ? path.relative(path.dirname(outRollouts), first.dir) : null;
  if (whole && target && current === target) return true;
  if (current !== null) {
    // The link no longer fits (another unit, or only finished rollouts kept): merge for real from here on.
    rmSync(outRollouts);
    memo.linked.clear();
    memo.present = undefined;
  }
  if (whole && target) {
    // An empty folder from before the unit's first rollout gives way to the link.
    if (existsSync(outRollouts) && readdirSync(outRollouts).length === 0) rmSync(outRollouts, { recursive: true });
    if (!existsSync(outRollouts)) {
      mkdirSync(path.dirname(outRollouts), { recursive: true });
      symlinkSync(target, outRollouts, "dir");
      return true;
    }
  }
  mkdirSync(outRollouts, { recursive: true });
  return false;
}

/** The kept rollouts as hard links (copies where links cannot go) in the merged folder; returns the ended ones' names. */
function linkRollouts(outRollouts: string, kept: RolloutFileState[], memo: MergeMemo): string[] {
  memo.present ??= new Set(readdirSync(outRollouts));
  const present = memo.present;
  const taken = new Set<string>();
  const finished: string[] = [];
  for (const r of kept) {
    // Rollout ids are unique within a run; across units the unit id makes them so.
    let name = r.name;
    if (taken.has(name)) name = `${r.unit}-${name}`;
    taken.add(name);
    const ended = hasFinished(r);
    if (ended) finished.push(name);
    // A link stays current by itself; only this function removes merged files.
    if (memo.linked.get(name) === r.file) continue;
    const dest = path.join(outRollouts, name);
    if (present.has(name)) {
      const [a, b] = [statSync(r.file), statSync(dest)];
      if (a.ino === b.ino && a.dev === b.dev) {
        memo.linked.set(name, r.file);
        continue;
      }
      if (a.size === b.size) continue;
      rmSync(dest);
    }
    // A hard link costs nothing and grows with the trajectory; a copy where links cannot go.
    try {
      linkSync(r.file, dest);
      memo.linked.set(name, r.file);
    } catch {
      copyFileSync(r.file, dest);
      // A copy of a trajectory that has ended stays current too.
      if (ended) memo.linked.set(name, r.file);
    }
    present.add(name);
  }
  // What an earlier merge took that the run no longer keeps (an interrupted rollout redone since).
  for (const name of present) {
    if (taken.has(name)) continue;
    rmSync(path.join(outRollouts, name), { force: true });
    memo.linked.delete(name);
    present.delete(name);
  }
  return finished;
}

/** The job's run.json (written only when it changed). */
function writeRunJson(job: JobRecord, runDir: string, version: string, unitDir: (u: WorkUnit) => string, memo: MergeMemo): void {
  memo.firstRun ??= firstUnitRun(job, unitDir);
  const first = memo.firstRun;
  const record: RunRecord = {
    id: job.run_id,
    created: job.started ?? job.created,
    ...(job.ended ? { ended: job.ended } : {}),
    status: job.state === "queued" ? "running" : job.state,
    env: { name: job.env.name, hash: job.env.hash, domain: job.env.domain, path: first?.env.path ?? "" },
    config: job.spec.config,
    host: hostname(),
    version,
  };
  const runJson = `${JSON.stringify(record, null, 2)}\n`;
  if (runJson !== memo.runJson) writeFileSync(path.join(runDir, "run.json"), runJson);
  memo.runJson = runJson;
}

/** The run.json one of the units wrote (for fields the runner does not know itself). */
function firstUnitRun(job: JobRecord, unitDir: (u: WorkUnit) => string): RunRecord | undefined {
  for (const u of job.units) {
    const dir = unitDir(u);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const f = path.join(dir, name, "run.json");
      if (existsSync(f)) {
        try {
          return JSON.parse(readFileSync(f, "utf8")) as RunRecord;
        } catch {
          // being written
        }
      }
    }
  }
  return undefined;
}

/** The units' own utilisation figures, weighted by their wall time (shards run side by side). */
function meanUtilisation(job: JobRecord, unitDir: (u: WorkUnit) => string): RunSummary["utilisation"] | undefined {
  const found: NonNullable<RunSummary["utilisation"]>[] = [];
  for (const u of job.units) {
    if (u.keep === "none") continue;
    const dir = unitDir(u);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const f = path.join(dir, name, SUMMARY_FILE);
      if (!existsSync(f)) continue;
      try {
        const s = JSON.parse(readFileSync(f, "utf8")) as RunSummary;
        if (s.utilisation) found.push(s.utilisation);
      } catch {
        // a unit killed while writing it
      }
    }
  }
  if (found.length === 0) return undefined;
  const wall = found.reduce((a, u) => a + u.wall_ms, 0);
  return {
    policy: wall > 0 ? found.reduce((a, u) => a + u.policy * u.wall_ms, 0) / wall : 0,
    sandbox_busy_ms: found.reduce((a, u) => a + u.sandbox_busy_ms, 0),
    max_queue_depth: Math.max(...found.map((u) => u.max_queue_depth)),
    wall_ms: Math.max(...found.map((u) => u.wall_ms)),
  };
}

/**
 * When one unit did the whole job and kept everything, its own summary is the job's
 * (same trajectories); reusing it saves reading every trajectory again.
 */
function singleUnitSummary(job: JobRecord, unitDir: (u: WorkUnit) => string): RunSummary | undefined {
  const kept = job.units.filter((u) => u.keep !== "none");
  const only = kept[0];
  if (kept.length !== 1 || !only || only.keep !== "all" || only.state !== "completed") return undefined;
  const dir = unitDir(only);
  const runs = existsSync(dir) ? readdirSync(dir) : [];
  if (runs.length !== 1 || !runs[0]) return undefined;
  const f = path.join(dir, runs[0], SUMMARY_FILE);
  if (!existsSync(f)) return undefined;
  try {
    return { ...(JSON.parse(readFileSync(f, "utf8")) as RunSummary), run_id: job.run_id };
  } catch {
    return undefined;
  }
}
