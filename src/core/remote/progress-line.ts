import type { Observation } from "../util/observations";

/**
 * The lines `rlenv run --progress-jsonl` writes on stderr, for the runner's local executor:
 * each rollout end (it learns rollout ends from its child as they happen instead of polling
 * a thousand trajectory files; polling stays for Slurm's shared folders), and each rollout
 * start, sandbox start and policy request, which feed the runner's metrics.
 */
export const ROLLOUT_END_PREFIX = "@rlenv-rollout-end ";
export const OBSERVATION_PREFIX = "@rlenv-observe ";

export interface PushedRolloutEnd {
  task: string;
  sample: number;
  status: string;
  reward: number | null;
  /** The trajectory file (as the child wrote it; relative paths are the child's cwd's). */
  file: string;
  /** The machinery failed it (sandbox, policy server), not the agent. */
  infra?: boolean;
  /** Why it ended as it did. */
  reason?: string;
}

export function formatRolloutEndLine(end: PushedRolloutEnd): string {
  return `${ROLLOUT_END_PREFIX}${JSON.stringify({
    task: end.task,
    sample: end.sample,
    status: end.status,
    reward: end.reward,
    file: end.file,
    ...(end.infra ? { infra: true } : {}),
    ...(end.reason ? { reason: end.reason } : {}),
  })}`;
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
  const { task, sample, status, reward, file, infra, reason } = v;
  if (typeof task !== "string" || typeof sample !== "number" || typeof status !== "string" || typeof file !== "string" || !file)
    return undefined;
  if (reward !== null && typeof reward !== "number") return undefined;
  return { task, sample, status, reward, file, ...(infra === true ? { infra } : {}), ...(typeof reason === "string" ? { reason } : {}) };
}

export function formatObservationLine(o: Observation): string {
  return `${OBSERVATION_PREFIX}${JSON.stringify(o)}`;
}

/** The observation of a progress line; undefined for any other line and for a malformed one (a metric sample lost, nothing else). */
export function parseObservationLine(line: string): Observation | undefined {
  if (!line.startsWith(OBSERVATION_PREFIX)) return undefined;
  let v: { kind?: unknown; ms?: unknown; class?: unknown; signal?: unknown };
  try {
    v = JSON.parse(line.slice(OBSERVATION_PREFIX.length));
  } catch {
    return undefined;
  }
  if (v.kind === "rollout-start") return { kind: "rollout-start" };
  if (v.kind === "rollout-error")
    return typeof v.class === "string" && /^[a-z_]{1,40}$/.test(v.class) ? { kind: v.kind, class: v.class } : undefined;
  if (v.kind === "hack-signal")
    return typeof v.signal === "string" && /^[a-z-]{1,40}$/.test(v.signal) ? { kind: v.kind, signal: v.signal } : undefined;
  if ((v.kind === "sandbox-start" || v.kind === "policy-request") && typeof v.ms === "number" && Number.isFinite(v.ms) && v.ms >= 0)
    return { kind: v.kind, ms: v.ms };
  return undefined;
}
