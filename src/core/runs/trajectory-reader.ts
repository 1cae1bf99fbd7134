import { closeSync, fstatSync, ftruncateSync, openSync, readSync } from "node:fs";
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

/**
 * The longest line a reader takes: a longer one is reported as a bad line, not parsed (a string of
 * 512 MiB cannot be made at all, and one event that size is no trajectory's). The writer caps events
 * far below it (trajectory-bounds.ts).
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Each line of a file (without its newline), read in chunks: never the whole file as one string, so a
 * trajectory of any size can be read. A line over `maxLineBytes` comes as null with its length. Returns
 * whether the last line had no newline (torn).
 */
export function forEachLine(
  file: string,
  onLine: (line: string | null, lineNo: number, bytes: number) => void,
  maxLineBytes = MAX_LINE_BYTES,
): { torn: boolean } {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let pieces: Buffer[] = [];
    let held = 0;
    let lineBytes = 0;
    let lineNo = 0;
    const flush = () => {
      lineNo++;
      onLine(lineBytes > maxLineBytes ? null : Buffer.concat(pieces, held).toString("utf8"), lineNo, lineBytes);
      pieces = [];
      held = 0;
      lineBytes = 0;
    };
    const take = (part: Buffer) => {
      lineBytes += part.length;
      // Past the limit only the length is counted: the bytes are let go of as they come.
      if (lineBytes > maxLineBytes) {
        pieces = [];
        held = 0;
      } else if (part.length > 0) {
        pieces.push(Buffer.from(part));
        held += part.length;
      }
    };
    for (let n = readSync(fd, buf, 0, CHUNK_BYTES, null); n > 0; n = readSync(fd, buf, 0, CHUNK_BYTES, null)) {
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE, from); nl !== -1 && nl < n; nl = buf.indexOf(NEWLINE, from)) {
        take(buf.subarray(from, nl));
        flush();
        from = nl + 1;
      }
      take(buf.subarray(from, n));
    }
    const torn = lineBytes > 0;
    if (torn) flush();
    return { torn };
  } finally {
    closeSync(fd);
  }
}

/** Read a rollout file line by line; tolerant of a killed writer (torn last line, no end event) and of lines too long to read. */
export function readTrajectory(file: string, maxLineBytes = MAX_LINE_BYTES): TrajectoryRead {
  const events: TrajectoryEvent[] = [];
  const bad: TrajectoryRead["bad"] = [];
  let last: { line: number; message: string } | undefined;
  const { torn } = forEachLine(
    file,
    (raw, line, bytes) => {
      last = undefined;
      const text = line === 1 && raw?.startsWith(BOM) ? raw.slice(1) : raw;
      if (text === null) {
        bad.push({ line, message: `line of ${bytes} bytes, over the ${maxLineBytes}-byte limit of one event: not read` });
        return;
      }
      if (text.trim() === "") return;
      const r = parseEventLine(text);
      if (r.ok) events.push(r.event);
      else {
        last = { line, message: r.message };
        bad.push(last);
      }
    },
    maxLineBytes,
  );
  if (torn && last?.message.startsWith("invalid JSON"))
    last.message = last.message.replace("invalid JSON", "invalid JSON (torn last line)");
  return { events, bad, torn };
}

/**
 * Cuts a file back to its last newline: a line a write left half done (a killed process, a full disk)
 * goes, whole lines stay. Reads backwards from the end, a chunk at a time. Returns the bytes removed.
 */
export function trimTornLine(file: string): number {
  const fd = openSync(file, "r+");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = readSync(fd, buf, 0, end - start, start);
      const nl = buf.subarray(0, n).lastIndexOf(NEWLINE);
      if (nl !== -1) {
        const keep = start + nl + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Each event of a trajectory, one line at a time, to `visit`; lines that are not events are skipped.
 * For readers that keep a few events of a rollout (the report, the outcomes): memory stays that of one
 * line, whatever the file's size.
 */
export function scanTrajectory(file: string, visit: (event: TrajectoryEvent) => void, maxLineBytes = MAX_LINE_BYTES): void {
  forEachLine(
    file,
    (raw, line) => {
      const text = line === 1 && raw?.startsWith(BOM) ? raw.slice(1) : raw;
      if (text === null || text.trim() === "") return;
      const r = parseEventLine(text);
      if (r.ok) visit(r.event);
    },
    maxLineBytes,
  );
}
