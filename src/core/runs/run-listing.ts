import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { rolloutFailure } from "./failure";
import { RunRecord, RunSummary } from "../schema/run";
import type { RewardComponent } from "../schema/trajectory";
import { rolloutFiles } from "./run-dir";
import { shownRecord } from "./run-state";
import { readTrajectory } from "./trajectory-reader";

/** A run folder as the Runs view and the dashboard list it; record or summary missing when unreadable. */
export interface RunListing {
  dir: string;
  id: string;
  record?: RunRecord;
  summary?: RunSummary;
  /** Sort key: record.created, else the folder's mtime. */
  created: string;
  problem?: string;
}

function readJson<T>(file: string, parse: (v: unknown) => T): { value?: T; problem?: string } {
  if (!existsSync(file)) return {};
  try {
    return { value: parse(JSON.parse(readFileSync(file, "utf8"))) };
  } catch (e) {
    return { problem: `${path.basename(file)}: ${(e as Error).message.split("\n")[0]}` };
  }
}

/** Runs under a runs folder (folders holding run.json), newest first. */
export function listRunFolders(runsDir: string): RunListing[] {
  if (!existsSync(runsDir)) return [];
  const out: RunListing[] = [];
  for (const name of readdirSync(runsDir)) {
    const dir = path.join(runsDir, name);
    if (!statSync(dir).isDirectory() || !existsSync(path.join(dir, "run.json"))) continue;
    // A run whose process is gone (killed, crashed) shows as interrupted, not running for ever.
    const rec = readJson(path.join(dir, "run.json"), (v) => shownRecord(RunRecord.parse(v)));
    const sum = readJson(path.join(dir, "summary.json"), (v) => RunSummary.parse(v));
    const problem = [rec.problem, sum.problem].filter(Boolean).join("; ");
    out.push({
      dir,
      id: rec.value?.id ?? name,
      ...(rec.value ? { record: rec.value } : {}),
      ...(sum.value ? { summary: sum.value } : {}),
      created: rec.value?.created ?? statSync(dir).mtime.toISOString(),
      ...(problem ? { problem } : {}),
    });
  }
  return out.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : b.id.localeCompare(a.id)));
}

/** "mean 0.83 · pass@1 0.75 · 12 rollouts" for a run's description. */
export function describeRun(r: RunListing): string {
  const s = r.summary;
  if (!s) return r.record?.status ?? r.problem ?? "no summary";
  const parts = [`mean ${s.mean_reward === null ? "–" : s.mean_reward.toFixed(2)}`];
  for (const [k, v] of Object.entries(s.pass_at_k).sort(([a], [b]) => Number(a) - Number(b))) parts.push(`pass@${k} ${v.toFixed(2)}`);
  parts.push(`${s.rollouts} rollout${s.rollouts === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/** One rollout file of a run, with its reward when the trajectory has one. */
export interface RolloutListing {
  file: string;
  task?: string;
  policy?: string;
  status?: string;
  /** The end event's reason. */
  reason?: string;
  reward: number | null;
  components: RewardComponent[];
}

/** Reads what the views need from a trajectory: task, policy, status, reward and its components. */
export function readRolloutSummary(file: string): RolloutListing {
  const { events } = readTrajectory(file);
  const out: RolloutListing = { file, reward: null, components: [] };
  for (const e of events) {
    if (e.type === "start") {
      out.task = e.task.id;
      out.policy = e.policy.kind;
    } else if (e.type === "reward") {
      out.reward = e.total;
      out.components = e.components;
    } else if (e.type === "end") {
      out.status = e.status;
      if (e.reason) out.reason = e.reason;
    }
  }
  return out;
}

/** The rollout files of a run folder, sorted by name. */
export const listRollouts = rolloutFiles;

/** Why a listed rollout fell short, in one line (see core/runs/failure.ts); undefined at full marks or while it runs. */
export function rolloutFailureLine(r: RolloutListing): string | undefined {
  if (!r.status || r.status === "cancelled") return undefined;
  return rolloutFailure({ status: r.status, reason: r.reason, reward: r.reward, components: r.components });
}

/** "tests 0.80 (4/5 passed) · weight 1" lines: the reward breakdown as text. */
export function formatBreakdown(components: RewardComponent[]): string[] {
  return components.map((c) => {
    const extra = c.error ? ` — error: ${c.error}` : c.skipped ? ` — skipped: ${c.skipped}` : c.reason ? ` — ${c.reason}` : "";
    return `${c.name} (${c.type}, weight ${c.weight}): ${c.score.toFixed(2)}${c.passed === undefined ? "" : c.passed ? " ✓" : " ✗"}${extra}`;
  });
}
