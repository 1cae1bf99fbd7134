import { close, fsync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { type RunsDiskError, runsDiskError } from "../runs/disk-error";
import { boundedLine, CLOSING_EVENTS, DEFAULT_TRAJECTORY_LIMITS, type TrajectoryLimits, TrajectoryLimitError } from "./trajectory-bounds";
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
  /** Bytes of whole lines written: a failed write is cut back to here, so a line is whole or absent. */
  private size = 0;
  /** The write that failed: every later one fails with it too, and writes nothing. */
  private failure: RunsDiskError | null = null;
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
  static async create(file: string, limits: TrajectoryLimits = DEFAULT_TRAJECTORY_LIMITS): Promise<TrajectoryWriter> {
    try {
      return new TrajectoryWriter(file, openNew(file), limits);
    } catch (e) {
      // A full or read-only runs disk is named as such; an existing file is the caller's mistake, as it was.
      if (["ENOSPC", "EDQUOT", "EROFS"].includes((e as NodeJS.ErrnoException).code ?? "")) throw runsDiskError(file, e);
      throw e;
    }
  }

  private constructor(
    readonly file: string,
    fd: number,
    private readonly limits: TrajectoryLimits,
  ) {
    this.fd = fd;
  }

  write(e: TrajectoryEventInput): TrajectoryEvent {
    if (this.failure) throw this.failure;
    if (this.fd === null) throw new Error(`trajectory ${this.file} is already closed`);
    const event = { ...e, seq: this.seq, t: Date.now() } as TrajectoryEvent;
    const line = Buffer.from(boundedLine(event, this.limits.maxEventBytes), "utf8");
    // Past the size limit only the closing events go in: the file ends with its outcome, never mid-flood.
    if (!CLOSING_EVENTS.has(event.type) && this.size + line.length > this.limits.maxBytes)
      throw new TrajectoryLimitError(`the trajectory reached its limit of ${this.limits.maxBytes} bytes: the rollout ends here`);
    this.append(this.fd, line);
    this.seq++;
    this.events.push(event);
    if (event.type === "end") void this.close().catch(() => {});
    return event;
  }

  /**
   * Writes one whole line, or none: a write cut short (a disk that fills mid-line) is truncated back
   * to the last whole line, and the writer fails from then on with an error naming the file and disk.
   */
  private append(fd: number, line: Buffer): void {
    try {
      for (let at = 0; at < line.length; ) at += writeSync(fd, line, at, line.length - at);
      this.size += line.length;
    } catch (err) {
      try {
        ftruncateSync(fd, this.size);
      } catch {
        // Nothing more can be done here: the reader reports a torn last line, and a resume trims it.
      }
      this.failure = runsDiskError(this.file, err);
      throw this.failure;
    }
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
