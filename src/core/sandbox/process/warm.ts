import type { SandboxRequest } from "../../model/sandbox";
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
  /** Reusable sandboxes out with a holder: they come back on close, so refill counts them as the pool's. */
  lent: number;
  /** The most reusable ones out at once: how many recycled ones are worth keeping. */
  peakLent: number;
  /** Why the last start failed: filling stops until an acquire starts one itself. */
  failed: Error | null;
  waiters: Array<() => void>;
}

/**
 * Process sandboxes started ahead of use, per shape, and (where the request allows reuse)
 * those given back on close, wiped: either way pristine (nothing to wipe), handed out as they
 * are. New ones start in the background to keep `want` ready, lent ones counted, so a run
 * whose sandboxes come back starts one per concurrent slot, not one per rollout. Only shapes
 * prewarm asked for are started ahead; any shape keeps what comes back, up to its peak use.
 */
export class WarmSandboxes {
  private readonly shapes = new Map<string, Shape>();
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly start: (req: SandboxRequest) => Promise<ProcessSandbox>) {}

  /** Keeps at least `count` ready for this shape; resolves once they are (rejects with why one could not start). */
  async fill(req: SandboxRequest, count: number): Promise<void> {
    const shape = this.shape(req);
    shape.want = Math.max(shape.want, count);
    shape.failed = null;
    this.refill(shape);
    while (shape.ready.length + shape.starting > 0 && shape.ready.length < shape.want && !shape.failed && !this.stopped) {
      await new Promise<void>((resolve) => shape.waiters.push(resolve));
    }
    if (shape.failed) throw shape.failed;
  }

  private shape(req: SandboxRequest): Shape {
    const key = shapeKey(req);
    let shape = this.shapes.get(key);
    if (!shape) {
      const { signal: _signal, labels: _labels, ...kept } = req;
      shape = { req: kept, want: 0, ready: [], starting: 0, lent: 0, peakLent: 0, failed: null, waiters: [] };
      this.shapes.set(key, shape);
    }
    return shape;
  }

  /**
   * A ready sandbox of this shape, if one is (another starts in its place unless lent ones
   * will come back). A reusable request is counted as lent either way: the caller starts its
   * own when none is ready, and gives it back (giveBack) or says it did not (unlend).
   */
  take(req: SandboxRequest): ProcessSandbox | undefined {
    const shape = req.reuse ? this.shape(req) : this.shapes.get(shapeKey(req));
    if (!shape) return undefined;
    if (req.reuse) {
      shape.lent++;
      shape.peakLent = Math.max(shape.peakLent, shape.lent);
    }
    const sb = shape.ready.shift();
    if (sb) this.refill(shape);
    return sb;
  }

  /** A reusable sandbox that will not come back (its start failed, or it was destroyed). */
  unlend(req: SandboxRequest): void {
    const shape = this.shapes.get(shapeKey(req));
    if (!shape || !req.reuse) return;
    shape.lent = Math.max(0, shape.lent - 1);
    this.refill(shape);
  }

  /**
   * A closed reusable sandbox comes back: kept, wiped (see ProcessSandbox.recycled), when the
   * pool is not stopped and holds fewer than were ever out at once. False: destroy it yourself.
   */
  async giveBack(sb: ProcessSandbox, req: SandboxRequest): Promise<boolean> {
    const shape = this.shapes.get(shapeKey(req));
    if (!shape || !req.reuse) return false;
    // Still counted as lent while its wipe runs, so that no refill starts one in its place meanwhile.
    const room = () => !this.stopped && shape.ready.length + shape.lent - 1 < Math.max(shape.want, shape.peakLent);
    const fresh = room() ? await sb.recycled(shape.req) : null;
    const kept = fresh !== null && room();
    shape.lent = Math.max(0, shape.lent - 1);
    if (fresh && kept) {
      shape.ready.unshift(fresh); // before the never-used ones: its pages are warm
      this.wake(shape);
    } else this.refill(shape);
    return kept;
  }

  private refill(shape: Shape): void {
    while (!this.stopped && !shape.failed && shape.ready.length + shape.starting + shape.lent < shape.want) {
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
