import { close, fsync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import type { TrajectoryEvent, TrajectoryEventInput } from "../schema/trajectory";

/**
 * Append-only JSONL writer for one rollout (made by `create`). Each event is one synchronous write of a
 * whole line, so a process killed at any moment leaves every earlier line intact in the
 * page cache; `end` is followed by fsync so a finished rollout survives a power cut too.
 * The fsync runs on libuv's thread pool, not the event loop: a synchronous one stalled
 * every other rollout of the run for its whole duration (0.3–0.8 s per validate run).
 */
export class TrajectoryWriter {
  private fd: number | null;
  private seq = 0;
  private flushing: Promise<void> | null = null;
  /** Every event written, for verifiers that look at the process and for the caller. */
  readonly events: TrajectoryEvent[] = [];

  /**
   * Creates the trajectory file with one synchronous open, making its folder only when the
   * open says it is missing. The open costs about 0.2 ms of the event loop; done on libuv's
   * thread pool instead, it queued behind every other rollout's pool work (trajectory fsyncs,
   * a process sandbox's recursive removals), and at concurrency 32 a rollout waited 30 ms to
   * 1 s for its file, which was most of the engine's time per step.
   * One file per rollout: an existing trajectory is never appended to (the promise rejects).
   */
  static async create(file: string): Promise<TrajectoryWriter> {
    return new TrajectoryWriter(file, openNew(file));
  }

  private constructor(
    readonly file: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  write(e: TrajectoryEventInput): TrajectoryEvent {
    const event = { ...e, seq: this.seq++, t: Date.now() } as TrajectoryEvent;
    this.events.push(event);
    if (this.fd === null) throw new Error(`trajectory ${this.file} is already closed`);
    writeSync(this.fd, `${JSON.stringify(event)}\n`);
    if (event.type === "end") void this.close().catch(() => {});
    return event;
  }

  get closed(): boolean {
    return this.fd === null;
  }

  /** Flush to disk and close; resolves once the file is on disk. Safe to call twice (the same promise). */
  close(): Promise<void> {
    if (this.flushing) return this.flushing;
    const fd = this.fd;
    this.fd = null;
    if (fd === null) return Promise.resolve();
    this.flushing = new Promise<void>((resolve, reject) => {
      fsync(fd, (syncErr) => {
        close(fd, (closeErr) => {
          const err = syncErr ?? closeErr;
          if (err) reject(new Error(`trajectory ${this.file} could not be flushed to disk: ${err.message}`));
          else resolve();
        });
      });
    });
    return this.flushing;
  }
}

/** Opens a new file for writing (never an existing one), making its folder when it is missing. */
function openNew(file: string): number {
  try {
    return openSync(file, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(path.dirname(file), { recursive: true });
    return openSync(file, "wx");
  }
}
