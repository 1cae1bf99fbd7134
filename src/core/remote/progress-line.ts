/**
 * The line `rlenv run --progress-jsonl` writes on stderr for each rollout end, for the
 * runner's local executor: it learns rollout ends from its child as they happen instead
 * of polling a thousand trajectory files (polling stays for Slurm's shared folders).
 */
export const ROLLOUT_END_PREFIX = "@rlenv-rollout-end ";

export interface PushedRolloutEnd {
  task: string;
  sample: number;
  status: string;
  reward: number | null;
  /** The trajectory file (as the child wrote it; relative paths are the child's cwd's). */
  file: string;
}

export function formatRolloutEndLine(end: PushedRolloutEnd): string {
  return `${ROLLOUT_END_PREFIX}${JSON.stringify({ task: end.task, sample: end.sample, status: end.status, reward: end.reward, file: end.file })}`;
}

/** The rollout end of a progress line; undefined for any other line, and for a malformed one (the final scan finds that file). */
export function parseRolloutEndLine(line: string): PushedRolloutEnd | undefined {
  if (!line.startsWith(ROLLOUT_END_PREFIX)) return undefined;
  let v: Partial<Record<keyof PushedRolloutEnd, unknown>>;
  try {
    v = JSON.parse(line.slice(ROLLOUT_END_PREFIX.length));
  } catch {
    return undefined;
  }
  const { task, sample, status, reward, file } = v;
  if (typeof task !== "string" || typeof sample !== "number" || typeof status !== "string" || typeof file !== "string" || !file)
    return undefined;
  if (reward !== null && typeof reward !== "number") return undefined;
  return { task, sample, status, reward, file };
}
