import type { TrajectoryEvent } from "../schema/trajectory";

/** Limits on what one rollout writes: each event, and the trajectory as a whole. */
export interface TrajectoryLimits {
  /** One event's line, in bytes: longer strings in it are cut, with a mark saying so. */
  maxEventBytes: number;
  /** The whole file: past it the rollout ends `truncated` (its reward and end are still written). */
  maxBytes: number;
}

/**
 * Far above any honest rollout (a tool's output is cut at tool_output_limit long before), far below
 * what breaks a reader: a 629 MB trajectory made `rlenv report` and `rlenv export` fail for the run.
 */
export const DEFAULT_TRAJECTORY_LIMITS: TrajectoryLimits = { maxEventBytes: 8 * 1024 * 1024, maxBytes: 128 * 1024 * 1024 };

/** Events written whatever the trajectory's size: without them a rollout has no outcome. */
export const CLOSING_EVENTS: ReadonlySet<TrajectoryEvent["type"]> = new Set(["reward", "error", "end"]);

/** The rollout's trajectory reached its size limit: the model's doing (it flooded), so the rollout is scored, as truncated. */
export class TrajectoryLimitError extends Error {
  override name = "TrajectoryLimitError";
}

const mark = (cut: number, limit: number) => `\n[… ${cut} characters cut: the event was over the trajectory's limit of ${limit} bytes …]\n`;

/** A copy of `value` with every string longer than `keep` characters cut to its head and tail around a mark. */
function cutStrings(value: unknown, keep: number, limit: number): unknown {
  if (typeof value === "string") {
    if (value.length <= keep) return value;
    const half = Math.floor(keep / 2);
    return value.slice(0, half) + mark(value.length - 2 * half, limit) + value.slice(value.length - half);
  }
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, keep, limit));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, keep, limit)]));
  return value;
}

/**
 * The event's line (with its newline), at most `maxBytes` long when cutting its strings can make it so:
 * the longest are cut first, to a quarter of the limit, then halved until the line fits.
 */
export function boundedLine(event: TrajectoryEvent, maxBytes: number): string {
  const whole = `${JSON.stringify(event)}\n`;
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  for (let keep = Math.floor(maxBytes / 4); keep >= 16; keep = Math.floor(keep / 2)) {
    const line = `${JSON.stringify(cutStrings(event, keep, maxBytes))}\n`;
    if (Buffer.byteLength(line) <= maxBytes) return line;
  }
  return `${JSON.stringify(cutStrings(event, 16, maxBytes))}\n`;
}
