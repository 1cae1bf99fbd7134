import {
  appendFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { type JobEvent, type JobEventInput, JobEvent as JobEventSchema, type JobRecord, JobRecord as JobRecordSchema } from "../api";

/**
 * The job journal in the runner's data dir, one folder a job:
 *   jobs/<id>/job.json      the record, replaced atomically (write + fsync + rename)
 *   jobs/<id>/events.jsonl  every event sent to clients, append-only (SSE ids = line order)
 *   jobs/<id>/env/          the unpacked environment
 *   jobs/<id>/units/<u>/    each work unit's `rlenv run --runs` folder
 *   jobs/<id>/run/          the merged run folder that clients pull
 * A runner killed with SIGKILL finds all of it again at start-up.
 */
/** Each appended event's journal line: the SSE stream sends the same JSON without making it again. */
const serialized = new WeakMap<JobEvent, string>();

/** An event as JSON (the journal's own text for events it appended). */
export function eventJson(ev: JobEvent): string {
  return serialized.get(ev) ?? JSON.stringify(ev);
}

/** Events files kept open for appending at once. */
const OPEN_EVENT_FILES = 16;

export class JobJournal {
  readonly jobsDir: string;
  private readonly nextEventId = new Map<string, number>();
  /**
   * Open append handles of the events files, most recent last: a job streams an event per
   * rollout end, and opening the file for each (appendFileSync) was a good part of the
   * runner's CPU on a 1,000-rollout job. A few stay open; the oldest is closed beyond that.
   */
  private readonly eventFds = new Map<string, number>();

  constructor(readonly dataDir: string) {
    this.jobsDir = path.join(dataDir, "jobs");
    mkdirSync(this.jobsDir, { recursive: true, mode: 0o700 });
  }

  jobDir(id: string): string {
    return path.join(this.jobsDir, id);
  }

  save(job: JobRecord): void {
    const dir = this.jobDir(job.id);
    mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.job.json.${process.pid}.tmp`);
    writeFileSync(tmp, `${JSON.stringify(job, null, 2)}\n`);
    const fd = openSync(tmp, "r");
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path.join(dir, "job.json"));
  }

  /** Every job on disk; a folder whose record does not parse is reported, not dropped silently. */
  loadAll(): { jobs: JobRecord[]; problems: string[] } {
    const jobs: JobRecord[] = [];
    const problems: string[] = [];
    for (const id of readdirSync(this.jobsDir).sort()) {
      const file = path.join(this.jobsDir, id, "job.json");
      if (!existsSync(file)) continue;
      try {
        const r = JobRecordSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
        if (r.success) jobs.push(r.data);
        else problems.push(`${file}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      } catch (e) {
        problems.push(`${file}: ${(e as Error).message}`);
      }
    }
    return { jobs, problems };
  }

  /** Appends an event and returns it with its id (1, 2, … per job). */
  append(jobId: string, input: JobEventInput): JobEvent {
    const [event] = this.appendAll(jobId, [input]);
    if (!event) throw new Error("no event appended");
    return event;
  }

  /**
   * Appends events in one write (a watcher pass ends many rollouts at once: a write
   * each was a good part of the runner's CPU) and returns them with their ids.
   */
  appendAll(jobId: string, inputs: readonly JobEventInput[]): JobEvent[] {
    if (inputs.length === 0) return [];
    let id = this.nextId(jobId);
    const t = Date.now();
    const events: JobEvent[] = [];
    const lines: string[] = [];
    for (const input of inputs) {
      const event = { ...input, id, t } as JobEvent;
      const json = JSON.stringify(event);
      serialized.set(event, json);
      events.push(event);
      lines.push(json);
      id += 1;
    }
    writeSync(this.eventsFd(jobId), `${lines.join("\n")}\n`);
    this.nextEventId.set(jobId, id);
    return events;
  }

  private eventsFd(jobId: string): number {
    let fd = this.eventFds.get(jobId);
    if (fd !== undefined) {
      this.eventFds.delete(jobId);
    } else {
      fd = openSync(path.join(this.jobDir(jobId), "events.jsonl"), "a");
      const oldest = this.eventFds.keys().next();
      if (this.eventFds.size >= OPEN_EVENT_FILES && !oldest.done) {
        closeSync(this.eventFds.get(oldest.value)!);
        this.eventFds.delete(oldest.value);
      }
    }
    this.eventFds.set(jobId, fd);
    return fd;
  }

  /** Closes the open events files (a runner shutting down; tests that reopen the data dir). */
  close(): void {
    for (const fd of this.eventFds.values()) closeSync(fd);
    this.eventFds.clear();
  }

  /** Events with an id above `after` (a torn last line from a kill is skipped). */
  eventsAfter(jobId: string, after: number): JobEvent[] {
    const file = path.join(this.jobDir(jobId), "events.jsonl");
    if (!existsSync(file)) return [];
    const out: JobEvent[] = [];
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line) continue;
      try {
        const r = JobEventSchema.safeParse(JSON.parse(line));
        if (r.success && r.data.id > after) out.push(r.data);
      } catch {
        // torn last line of a killed runner
      }
    }
    return out;
  }

  private nextId(jobId: string): number {
    let next = this.nextEventId.get(jobId);
    if (next === undefined) {
      const file = path.join(this.jobDir(jobId), "events.jsonl");
      // A runner killed mid-write leaves a line without its newline: close it off first.
      if (existsSync(file)) {
        const text = readFileSync(file, "utf8");
        if (text.length > 0 && !text.endsWith("\n")) appendFileSync(file, "\n");
      }
      const all = this.eventsAfter(jobId, 0);
      next = (all.at(-1)?.id ?? 0) + 1;
    }
    return next;
  }
}
