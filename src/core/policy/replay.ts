import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { readTrajectory } from "../runs/trajectory-reader";
import { type PlannedTurn, PlannedPolicy } from "./scripted";

/** The recorded trajectory to replay for a task: the file itself, or the matching rollout in a run folder. */
export function findReplayFile(source: string, taskId: string, sample: number): string {
  if (!existsSync(source)) throw new Error(`replay: '${source}' does not exist`);
  if (statSync(source).isFile()) return source;
  const dir = existsSync(path.join(source, "rollouts")) ? path.join(source, "rollouts") : source;
  const candidates: Array<{ file: string; sample: number }> = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()) {
    const file = path.join(dir, name);
    const start = readTrajectory(file).events.find((e) => e.type === "start");
    if (start?.type === "start" && start.task.id === taskId) candidates.push({ file, sample: start.sample });
  }
  const hit = candidates.find((c) => c.sample === sample) ?? candidates[0];
  if (!hit) throw new Error(`replay: no rollout of task '${taskId}' in ${dir}`);
  return hit.file;
}

/** The assistant turns of a trajectory, in order. */
export function recordedTurns(file: string): PlannedTurn[] {
  const turns: PlannedTurn[] = [];
  for (const e of readTrajectory(file).events) {
    if (e.type !== "message" || e.role !== "assistant") continue;
    turns.push({
      content: typeof e.content === "string" ? e.content : null,
      calls: (e.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })),
    });
  }
  return turns;
}

/** Replays the actions of a recorded rollout, to check an environment change keeps its rewards. */
export class ReplayPolicy extends PlannedPolicy {
  constructor(readonly file: string) {
    super("replay", recordedTurns(file));
  }
}
