import { appendFileSync, existsSync, fsyncSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type JobEvent, type JobEventInput, JobEvent as JobEventSchema, type JobRecord, JobRecord as JobRecordSchema } from "./api";

/**
 * The job journal in the runner's data dir, one folder a job:
 *   jobs/<id>/job.json      the record, replaced atomically (write + fsync + rename)
 *   jobs/<id>/events.jsonl  every event sent to clients, append-only (SSE ids = line order)
 *   jobs/<id>/env/          the unpacked environment
 *   jobs/<id>/units/<u>/    each work unit's `rlenv run --runs` folder
 *   jobs/<id>/run/          the merged run folder that clients pull
 * A runner killed with SIGKILL finds all of it again at start-up.
 */
export class JobJournal {
  readonly jobsDir: string;
  private readonly nextEventId = new Map<string, number>();

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
    const id = this.nextId(jobId);
    const event = { ...input, id, t: Date.now() } as JobEvent;
    appendFileSync(path.join(this.jobDir(jobId), "events.jsonl"), `${JSON.stringify(event)}\n`);
    this.nextEventId.set(jobId, id + 1);
    return event;
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
