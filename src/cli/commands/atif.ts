import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { atifToEvents, isAtif, rolloutToAtif } from "../../core/harbor/atif";
import { readTrajectory } from "../../core/runs/trajectory-reader";
import { VERSION } from "../version";

/**
 * `rlenv export RUN --format atif`: each rollout of the run as one ATIF trajectory (Harbor's
 * format): one file per rollout in --out DIR (`<rollout-id>.json`), else one per line on stdout.
 * Rollouts are filtered by reward and status as the other formats are.
 */
export function exportAtif(run: string, o: { out?: string; minReward?: number; statuses?: string[] }): void {
  const dir = path.join(run, "rollouts");
  let n = 0;
  if (o.out) mkdirSync(o.out, { recursive: true });
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith(".jsonl"))
    .sort()) {
    const { events } = readTrajectory(path.join(dir, f));
    const end = events.find((e) => e.type === "end");
    if (o.minReward !== undefined && (end?.type !== "end" || end.reward === null || end.reward < o.minReward)) continue;
    if (o.statuses && (end?.type !== "end" || !o.statuses.includes(end.status))) continue;
    const atif = rolloutToAtif(events, VERSION);
    if (o.out) writeFileSync(path.join(o.out, `${path.basename(f, ".jsonl")}.json`), `${JSON.stringify(atif, null, 2)}\n`);
    else process.stdout.write(`${JSON.stringify(atif)}\n`);
    n++;
  }
  process.stderr.write(`exported ${n} rollout${n === 1 ? "" : "s"} as ATIF\n`);
}

/**
 * For `rlenv view`: an ATIF file (a .json whose schema_version is ATIF-…) becomes a rollout file
 * of ours in a temporary run folder, which the viewer opens; any other path is returned as is.
 */
export function viewableAtif(p: string): string {
  if (!p.endsWith(".json")) return p;
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(p, "utf8"));
  } catch {
    return p;
  }
  if (!isAtif(v)) return p;
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-atif-"));
  mkdirSync(path.join(root, "rollouts"));
  const file = path.join(root, "rollouts", `${path.basename(p, ".json")}.jsonl`);
  writeFileSync(
    file,
    atifToEvents(v)
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(""),
  );
  process.stderr.write(`${p}: an ATIF trajectory (${v.schema_version}), shown from ${file}\n`);
  return file;
}
