import type { SandboxRequest } from "../types";
import type { ProcessSandbox } from "./sandbox";

/** What makes two requests' sandboxes interchangeable: where the workdir is, who runs, the limits. */
function shapeKey(req: SandboxRequest): string {
  return JSON.stringify([req.workdir, req.user ?? "1000:1000", req.limits]);
}

interface Shape {
  req: SandboxRequest;
  /** How many to keep ready. */
  want: number;
  ready: ProcessSandbox[];
  starting: number;
  /** Why the last start failed: filling stops until an acquire starts one itself. */
  failed: Error | null;
  waiters: Array<() => void>;
}

/**
 * Process sandboxes started ahead of use, per shape: never used, so pristine (nothing to wipe),
 * handed out as they are and replaced in the background. Only shapes prewarm asked for are kept.
 */
export class WarmSandboxes {
  private readonly shapes = new Map<string, Shape>();
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly start: (req: SandboxRequest) => Promise<ProcessSandbox>) {}

  /** Keeps at least `count` ready for this shape; resolves once they are (rejects with why one could not start). */
  async fill(req: SandboxRequest, count: number): Promise<void> {
    const key = shapeKey(req);
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = { req, want: 0, ready: [], starting: 0, failed: null, waiters: [] };
      this.shapes.set(key, shape);
    }
    shape.want = Math.max(shape.want, count);
    shape.failed = null;
    this.refill(shape);
    while (shape.ready.length + shape.starting > 0 && shape.ready.length < shape.want && !shape.failed && !this.stopped) {
      await new Promise<void>((resolve) => shape.waiters.push(resolve));
    }
    if (shape.failed) throw shape.failed;
  }

  /** A ready sandbox of this shape, if one is (another starts in its place). */
  take(req: SandboxRequest): ProcessSandbox | undefined {
    const shape = this.shapes.get(shapeKey(req));
    const sb = shape?.ready.shift();
    if (shape && sb) this.refill(shape);
    return sb;
  }

  private refill(shape: Shape): void {
    while (!this.stopped && !shape.failed && shape.ready.length + shape.starting < shape.want) {
      shape.starting++;
      const started: Promise<void> = this.start(shape.req).then(
        (sb) => {
          shape.starting--;
          if (this.stopped)
            return sb
              .close()
              .catch(() => {})
              .finally(() => this.wake(shape));
          shape.ready.push(sb);
          this.wake(shape);
        },
        (e: Error) => {
          shape.starting--;
          shape.failed = e;
          this.wake(shape);
        },
      );
      this.inFlight.add(started);
      void started.finally(() => this.inFlight.delete(started));
    }
  }

  private wake(shape: Shape): void {
    for (const w of shape.waiters.splice(0)) w();
  }

  /** Stops refilling and closes the ready ones, and those still starting once they have started. */
  async stop(): Promise<void> {
    this.stopped = true;
    const ready = [...this.shapes.values()].flatMap((s) => {
      this.wake(s);
      return s.ready.splice(0);
    });
    await Promise.all([...ready.map((s) => s.close()), ...this.inFlight]);
  }
}
