import { readFileSync } from "node:fs";
import { type TrajectoryEvent, TrajectoryEvent as TrajectoryEventSchema } from "../schema/trajectory";

export interface TrajectoryRead {
  events: TrajectoryEvent[];
  /** Lines that did not parse or validate, with their 1-based line number; a torn last line lands here. */
  bad: Array<{ line: number; message: string }>;
  /** True when the last line had no newline (the writer was killed mid-write). */
  torn: boolean;
}

/** Parse trajectory text, keeping every valid event and reporting the rest (never throws on content). */
export function parseTrajectory(text: string): TrajectoryRead {
  const lines = text.split("\n");
  const torn = text.length > 0 && !text.endsWith("\n");
  const events: TrajectoryEvent[] = [];
  const bad: TrajectoryRead["bad"] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      bad.push({ line: i + 1, message: `invalid JSON${torn && i === lines.length - 1 ? " (torn last line)" : ""}: ${(e as Error).message}` });
      return;
    }
    const r = TrajectoryEventSchema.safeParse(raw);
    if (r.success) events.push(r.data);
    else bad.push({ line: i + 1, message: r.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ") });
  });
  return { events, bad, torn };
}

/** Read a rollout file; tolerant of a killed writer (torn last line, no end event). */
export function readTrajectory(file: string): TrajectoryRead {
  return parseTrajectory(readFileSync(file, "utf8"));
}
