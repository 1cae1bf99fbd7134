import type Docker from "dockerode";
import type { SandboxRequest } from "../../model/sandbox";
import { startContainer } from "./container";
import type { Limiter } from "./limiter";
import { DockerSandbox } from "./sandbox";

/** The per-rollout label: known only at acquire, so warm containers are made without it. */
export const ROLLOUT_LABEL = "rlenv.rollout";
/** The per-run label: left out of the shape too, so that a validate's oracle and nop runs share warm containers. */
export const RUN_LABEL = "rlenv.run";

/** The shape warm containers are made in: the request less its signal and per-use labels (run, rollout). */
export function poolShape(req: SandboxRequest): SandboxRequest {
  const { signal: _signal, labels, ...rest } = req;
  const { [ROLLOUT_LABEL]: _rollout, [RUN_LABEL]: _run, ...shared } = labels ?? {};
  return { ...rest, labels: shared };
}

/** Sandboxes are interchangeable when everything that shapes their container is equal. */
export function poolKey(req: SandboxRequest): string {
  const s = poolShape(req);
  return JSON.stringify([
    s.image,
    s.workdir,
    s.user,
    s.limits,
    !!s.reuse,
    !!s.writableRoot,
    !!s.defaultCapabilities,
    Object.entries(s.labels ?? {}).sort(),
  ]);
}

/** A recycled container left this long in the pool is wiped there rather than by its next user. */
const IDLE_WIPE_MS = 1000;

type Waiter = { give: (s: DockerSandbox | null) => void };

/**
 * Containers of one shape, created and started ahead of demand so that acquire is a pop.
 * With reuse, the sandboxes lent out come back on close, reset in place; the pool then
 * holds as many as were ever out at once (the run's concurrency) and starts no more while
 * they are out, so a run pays `create` once per concurrent slot, not once per rollout.
 * Refills in the background after each acquire; a failed warm-up is retried on the next one.
 */
export class WarmPool {
  private readonly ready: DockerSandbox[] = [];
  /** Acquires waiting for a warm start already in flight (cheaper than starting another). */
  private readonly waiters: Waiter[] = [];
  private filling = 0;
  /** Reusable sandboxes out with a caller: they come back, so refill counts them as the pool's. */
  private lent = 0;
  /** The most reusable sandboxes out at once: how many recycled ones are worth keeping. */
  private peakLent = 0;
  private stopped = false;
  lastError: Error | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly req: SandboxRequest,
    private size: number,
    private readonly limiter: Limiter,
    private readonly release: (s: DockerSandbox) => Promise<void>,
  ) {}

  /** A started sandbox: warm when one is ready (or about to be), else started now with the caller's full request (labels included). */
  async acquire(req: SandboxRequest): Promise<{ sandbox: DockerSandbox; warm: boolean }> {
    if (req.reuse) {
      this.lent++;
      this.peakLent = Math.max(this.peakLent, this.lent);
    }
    try {
      let s: DockerSandbox | null | undefined = this.take();
      this.refill();
      if (!s && this.filling > this.waiters.length) s = await this.waitForStart(req.signal);
      if (s) return { sandbox: s, warm: true };
      return { sandbox: await this.start(req), warm: false };
    } catch (e) {
      if (req.reuse) this.lent--;
      throw e;
    }
  }

  /** A closed sandbox comes back: recycled when its request allows reuse and it is worth keeping. False: remove it. */
  takeBack(s: DockerSandbox): boolean {
    if (!s.req.reuse) return false;
    this.lent = Math.max(0, this.lent - 1);
    return this.recycle(s);
  }

  private take(): DockerSandbox | undefined {
    let s = this.ready.pop();
    while (s && !s.healthy) {
      void s.destroy().catch(() => {});
      s = this.ready.pop();
    }
    return s;
  }

  /** The next warm container to come up; null when a start failed (the caller then starts its own and sees why). */
  private waitForStart(signal: AbortSignal | undefined): Promise<DockerSandbox | null> {
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        give: (s) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(s);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error("cancelled"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  /** Hands a sandbox to the oldest waiting acquire; false when nobody waits. */
  private offer(s: DockerSandbox): boolean {
    const w = this.waiters.shift();
    if (!w) return false;
    w.give(s);
    return true;
  }

  private async start(req = this.req): Promise<DockerSandbox> {
    const live = await this.limiter.run(() => startContainer(this.docker, req));
    return new DockerSandbox(live, req, this.release, "pristine");
  }

  /**
   * Takes a released sandbox back, as it was left, so the next acquire gets it without create
   * or start: its first reset wipes it (every process killed, the workdir, /tmp and shared
   * memory emptied; the read-only root holds nothing else) together with the new seed, in one
   * round trip, and any other first use wipes before it runs (see DockerSandbox). A waiting
   * acquire gets it at once; else it goes on top (acquire pops it first), unless the pool
   * already holds as many as were ever out at once, or a wipe could not prove it clean
   * (spoiled). False: remove it yourself.
   */
  private recycle(s: DockerSandbox): boolean {
    if (this.stopped || s.live.agent.broken || s.live.spoiled) return false;
    if (this.waiters.length === 0 && this.ready.length + this.lent >= Math.max(this.size, this.peakLent)) return false;
    // A new handle: the released one stays closed for whoever still holds it. One given back
    // unused (its acquire was cancelled) has nothing to wipe.
    const fresh = new DockerSandbox(s.live, this.req, this.release, s.untouched ? "pristine" : "recycled");
    if (!this.offer(fresh)) {
      this.ready.push(fresh);
      // Not wanted at once: wipe it while it waits, so what the last holder left running stops
      // (an untouched one has nothing to wipe: wipeIdle leaves it be).
      setTimeout(() => {
        if (this.ready.includes(fresh)) void fresh.wipeIdle();
      }, IDLE_WIPE_MS).unref();
    }
    return true;
  }

  /** Keeps at least `n` warm from now on (a run about to use that many at once). */
  growTo(n: number): void {
    this.size = Math.max(this.size, n);
  }

  /** Starts containers until `size` are ready, starting or (reusable) lent out. */
  refill(): void {
    while (!this.stopped && this.ready.length + this.filling + this.lent < this.size) {
      this.filling++;
      this.start()
        .then(
          (s) => {
            if (this.stopped) return s.destroy();
            this.lastError = null;
            if (!this.offer(s)) this.ready.unshift(s); // below recycled ones, which are handed out first
          },
          (e: Error) => {
            this.lastError = e;
            this.waiters.shift()?.give(null);
          },
        )
        .finally(() => {
          this.filling--;
        });
      if (this.lastError) break; // do not spin on an engine that refuses
    }
  }

  get readyCount(): number {
    return this.ready.length;
  }

  /** Resolves once `size` warm containers are ready or (reusable) lent out, or a start failed. */
  async warmed(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.stopped && this.ready.length + this.lent < this.size && Date.now() < until) {
      if (this.lastError) throw this.lastError;
      // Unref'd: a caller that does not wait for the warm-up must not be kept alive by it.
      await new Promise((r) => setTimeout(r, 20).unref());
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.waiters.splice(0)) w.give(null);
    while (this.filling > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(this.ready.splice(0).map((s) => s.destroy()));
  }
}
