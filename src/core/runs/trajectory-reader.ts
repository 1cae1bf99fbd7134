import { readFileSync } from "node:fs";
import { type TrajectoryEvent, TrajectoryEvent as TrajectoryEventSchema } from "../schema/trajectory";

export interface TrajectoryRead {
  events: TrajectoryEvent[];
  /** Lines that did not parse or validate, with their 1-based line number; a torn last line lands here. */
  bad: Array<{ line: number; message: string }>;
  /** True when the last line had no newline (the writer was killed mid-write). */
  torn: boolean;
}

export type LineRead = { ok: true; event: TrajectoryEvent } | { ok: false; message: string };

/** One line of a trajectory (without its newline): the event, or why it is not one. Shared by every reader (the CLI's, the viewer's index). */
export function parseEventLine(line: string): LineRead {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return { ok: false, message: `invalid JSON: ${(e as Error).message}` };
  }
  const r = TrajectoryEventSchema.safeParse(raw);
  if (r.success) return { ok: true, event: r.data };
  return { ok: false, message: r.error.issues.map((x) => `${x.path.join(".") || "(event)"}: ${x.message}`).join("; ") };
}

/** A byte order mark some editors and Windows tools put first: not part of the first event. */
export const BOM = "\ufeff";

/** Parse trajectory text, keeping every valid event and reporting the rest (never throws on content). */
export function parseTrajectory(input: string): TrajectoryRead {
  const text = input.startsWith(BOM) ? input.slice(1) : input;
  const lines = text.split("\n");
  const torn = text.length > 0 && !text.endsWith("\n");
  const events: TrajectoryEvent[] = [];
  const bad: TrajectoryRead["bad"] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const r = parseEventLine(line);
    if (r.ok) events.push(r.event);
    else
      bad.push({
        line: i + 1,
        message:
          torn && i === lines.length - 1 && r.message.startsWith("invalid JSON")
            ? r.message.replace("invalid JSON", "invalid JSON (torn last line)")
            : r.message,
      });
  });
  return { events, bad, torn };
}

/** Read a rollout file; tolerant of a killed writer (torn last line, no end event). */
export function readTrajectory(file: string): TrajectoryRead {
  return parseTrajectory(readFileSync(file, "utf8"));
}
