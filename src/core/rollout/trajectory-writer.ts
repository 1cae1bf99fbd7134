import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import type { TrajectoryEvent, TrajectoryEventInput } from "../schema/trajectory";

/**
 * Append-only JSONL writer for one rollout. Each event is one synchronous write of a
 * whole line, so a process killed at any moment leaves every earlier line intact in the
 * page cache; `end` is followed by fsync so a finished rollout survives a power cut too.
 */
export class TrajectoryWriter {
  private fd: number | null;
  private seq = 0;
  /** Every event written, for verifiers that look at the process and for the caller. */
  readonly events: TrajectoryEvent[] = [];

  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    // One file per rollout: refuse to append a second rollout to an existing trajectory.
    this.fd = openSync(file, "wx");
  }

  write(e: TrajectoryEventInput): TrajectoryEvent {
    const event = { ...e, seq: this.seq++, t: Date.now() } as TrajectoryEvent;
    this.events.push(event);
    if (this.fd === null) throw new Error(`trajectory ${this.file} is already closed`);
    writeSync(this.fd, `${JSON.stringify(event)}\n`);
    if (event.type === "end") this.close();
    return event;
  }

  get closed(): boolean {
    return this.fd === null;
  }

  /** Flush to disk and close; safe to call twice. */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
