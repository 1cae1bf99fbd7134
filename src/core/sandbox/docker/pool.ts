import type Docker from "dockerode";
import type { SandboxRequest } from "../types";
import { startContainer } from "./container";
import type { Limiter } from "./limiter";
import { DockerSandbox } from "./sandbox";

/** The per-rollout label: known only at acquire, so warm containers are made without it. */
export const ROLLOUT_LABEL = "rlenv.rollout";

/** The shape warm containers are made in: the request less its signal and per-rollout label. */
export function poolShape(req: SandboxRequest): SandboxRequest {
  const { signal: _signal, labels, ...rest } = req;
  const { [ROLLOUT_LABEL]: _rollout, ...shared } = labels ?? {};
  return { ...rest, labels: shared };
}

/** Sandboxes are interchangeable when everything that shapes their container is equal. */
export function poolKey(req: SandboxRequest): string {
  const s = poolShape(req);
  return JSON.stringify([s.image, s.workdir, s.user, s.limits, Object.entries(s.labels ?? {}).sort()]);
}

/**
 * Containers of one shape, created and started ahead of demand so that acquire is a pop.
 * Refills in the background after each acquire; a failed warm-up is retried on the next one.
 */
export class WarmPool {
  private readonly ready: DockerSandbox[] = [];
  private filling = 0;
  private stopped = false;
  lastError: Error | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly req: SandboxRequest,
    private readonly size: number,
    private readonly limiter: Limiter,
    private readonly release: (s: DockerSandbox) => Promise<void>,
  ) {}

  /** A started sandbox: warm when one is ready, else started now with the caller's full request (labels included). */
  async acquire(req: SandboxRequest): Promise<{ sandbox: DockerSandbox; warm: boolean }> {
    let s = this.ready.pop();
    while (s && !s.healthy) {
      void s.destroy().catch(() => {});
      s = this.ready.pop();
    }
    this.refill();
    if (s) return { sandbox: s, warm: true };
    return { sandbox: await this.start(req), warm: false };
  }

  private async start(req = this.req): Promise<DockerSandbox> {
    const live = await this.limiter.run(() => startContainer(this.docker, req));
    return new DockerSandbox(live, req, this.release);
  }

  /**
   * Takes a released sandbox back: every process killed, workdir and /tmp emptied (the
   * read-only root holds nothing else), so the next acquire gets it without create or start.
   * It goes on top (acquire pops it first); beyond the pool size the oldest warm one is
   * removed instead, which costs the same as removing this one. False: remove it yourself.
   */
  async recycle(s: DockerSandbox): Promise<boolean> {
    if (this.stopped || this.size === 0 || s.live.agent.broken) return false;
    try {
      await s.reset({});
    } catch {
      return false;
    }
    if (this.stopped) return false;
    // A new handle: the released one stays closed for whoever still holds it.
    this.ready.push(new DockerSandbox(s.live, this.req, this.release));
    const extra = this.ready.splice(0, Math.max(0, this.ready.length - this.size));
    await Promise.all(extra.map((x) => x.destroy().catch(() => {})));
    return true;
  }

  /** Starts containers until `size` are ready or starting. */
  refill(): void {
    while (!this.stopped && this.ready.length + this.filling < this.size) {
      this.filling++;
      this.start()
        .then(
          (s) => {
            if (this.stopped || this.ready.length >= this.size) return s.destroy();
            this.ready.unshift(s); // below recycled ones, which are handed out first
            this.lastError = null;
          },
          (e: Error) => {
            this.lastError = e;
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

  /** Resolves once `size` warm containers are ready (or a start failed). */
  async warmed(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.ready.length < this.size && Date.now() < until) {
      if (this.lastError) throw this.lastError;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    while (this.filling > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(this.ready.splice(0).map((s) => s.destroy()));
  }
}
