import Docker from "dockerode";
import { sweepProcessOrphans } from "../process/sweep";
import { withDeadline } from "../../util/deadline";
import type { Sandbox, SandboxProvider, SandboxRequest } from "../../model/sandbox";
import { Limiter } from "./limiter";
import { poolKey, poolShape, WarmPool } from "./pool";
import type { DockerSandbox } from "./sandbox";
import { sweepOrphanContainers } from "./sweep";

export interface DockerProviderOptions {
  docker?: Docker;
  /** Warm containers kept ready per sandbox shape (default 2; 0 turns the pool off). */
  warm?: number;
  /** Container starts in flight at once (default 8). */
  startConcurrency?: number;
}

/** Whether a Docker engine answers (within `timeoutMs`). */
export async function dockerAnswers(docker = new Docker(), timeoutMs = 2000): Promise<boolean> {
  try {
    return (await withDeadline(docker.ping(), timeoutMs)).ok;
  } catch {
    return false;
  }
}

/** Docker sandboxes from warm pools, one pool per sandbox shape. */
export class DockerSandboxProvider implements SandboxProvider {
  readonly backend = "docker" as const;
  readonly docker: Docker;
  private readonly pools = new Map<string, WarmPool>();
  private readonly open = new Set<DockerSandbox>();
  private readonly limiter: Limiter;
  private readonly warm: number;
  /** Names of the orphan containers removed at start-up. */
  swept: string[] = [];

  private constructor(opts: DockerProviderOptions) {
    this.docker = opts.docker ?? new Docker();
    this.warm = opts.warm ?? 2;
    this.limiter = new Limiter(opts.startConcurrency ?? 8);
  }

  /** Connects, and removes the containers of owners that are gone before handing anything out. */
  static async create(opts: DockerProviderOptions = {}): Promise<DockerSandboxProvider> {
    const p = new DockerSandboxProvider(opts);
    if (!(await dockerAnswers(p.docker)))
      throw new Error("the Docker engine does not answer (is dockerd running and its socket reachable?)");
    p.swept = await sweepOrphanContainers(p.docker);
    // The other backend's leftovers too: a machine that now runs on Docker would otherwise keep them.
    try {
      sweepProcessOrphans();
    } catch {}
    return p;
  }

  private pool(req: SandboxRequest): WarmPool {
    const key = poolKey(req);
    let pool = this.pools.get(key);
    if (!pool) {
      const p: WarmPool = new WarmPool(this.docker, poolShape(req), this.warm, this.limiter, (s): Promise<void> => this.release(s, p));
      pool = p;
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** Starts the warm containers for this shape now (at least `count`) and waits for them. */
  async prewarm(req: SandboxRequest, count?: number): Promise<void> {
    const pool = this.pool(req);
    if (count !== undefined) pool.growTo(count);
    pool.refill();
    await pool.warmed();
  }

  async acquire(req: SandboxRequest): Promise<Sandbox> {
    req.signal?.throwIfAborted();
    if (!req.image) throw new Error("a docker sandbox needs an image (sandbox.image or sandbox.build in environment.yaml)");
    const { sandbox } = await this.pool(req).acquire(req);
    if (req.signal?.aborted) {
      await sandbox.close(); // back to the pool (it was never used), which also ends its loan
      req.signal.throwIfAborted();
    }
    this.open.add(sandbox);
    return sandbox;
  }

  /** A closed sandbox goes back to its pool when reuse is allowed and there is room, else away. */
  private async release(s: DockerSandbox, pool: WarmPool): Promise<void> {
    this.open.delete(s);
    if (pool.takeBack(s)) return;
    await s.destroy();
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.stop()));
    this.pools.clear();
    await Promise.all([...this.open].map((s) => s.close()));
  }
}
