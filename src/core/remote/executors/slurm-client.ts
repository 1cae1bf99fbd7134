import { jobDescription, noVal, readNode, readTask, SLURM_API_VERSIONS } from "./slurm-shapes";

/**
 * The slice of slurmrestd's REST API (JWT auth) the slurm executor uses: submit a batch script
 * (an array), read the states of its tasks and the nodes, cancel it. The openapi version is the
 * one asked for, or (`auto`) the newest the daemon answers; slurm-shapes.ts reads each version's JSON.
 */
export interface SlurmConnection {
  url: string;
  user: string;
  token: string;
  /** openapi plugin version in the path (v0.0.38 … v0.0.44), or `auto` (the default): the newest slurmrestd answers. */
  version?: string;
}

export interface SlurmSubmit {
  name: string;
  script: string;
  cwd: string;
  stdout: string;
  array?: string;
  partition?: string;
  gres?: string;
  timeLimitMin?: number;
  /** Submitted held (it waits for a release): set before anything of it can start. */
  hold?: boolean;
  environment: Record<string, string>;
}

export interface SlurmTaskState {
  jobId: number;
  arrayJobId: number;
  /** null for a still-folded pending array record. */
  arrayTaskId: number | null;
  /** e.g. "1-3,5" on a folded pending record. */
  arrayTaskString?: string;
  state: string;
  /** The wait status (exit code << 8). */
  exitCode: number;
  /** The node it runs or ran on (its batch host), once it has one. */
  node?: string;
}

/** A node as slurmrestd reports it, reduced to what placing shards needs. */
export interface SlurmNode {
  name: string;
  /** e.g. "idle", "mixed", "allocated", "down", "drained". */
  state: string;
  partitions: string[];
  cpus: number;
  allocCpus: number;
}

export class SlurmError extends Error {
  override name = "SlurmError";
}

/** States after which a Slurm job does nothing more. */
export const SLURM_DONE = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "TIMEOUT",
  "NODE_FAIL",
  "OUT_OF_MEMORY",
  "PREEMPTED",
  "BOOT_FAIL",
  "DEADLINE",
  "SPECIAL_EXIT",
]);

export class SlurmClient {
  private resolved: Promise<string> | null = null;

  constructor(private readonly conn: SlurmConnection) {}

  /** The openapi version in use: the one asked for, else the newest whose /diag answers (asked once). */
  version(): Promise<string> {
    const asked = this.conn.version;
    if (asked && asked !== "auto") return Promise.resolve(asked);
    this.resolved ??= this.detect().catch((e: unknown) => {
      this.resolved = null;
      throw e;
    });
    return this.resolved;
  }

  private async detect(): Promise<string> {
    const tried: string[] = [];
    for (const v of SLURM_API_VERSIONS) {
      const res = await fetch(`${this.root}/slurm/${v}/diag`, {
        headers: { "X-SLURM-USER-NAME": this.conn.user, "X-SLURM-USER-TOKEN": this.conn.token },
        signal: AbortSignal.timeout(30_000),
      });
      await res.text();
      if (res.ok) return v;
      tried.push(`${v}: HTTP ${res.status}`);
    }
    throw new SlurmError(
      `slurmrestd at ${this.conn.url} answers none of the openapi versions rlenv speaks (${tried.join(", ")}); name one with --slurm-api-version`,
    );
  }

  private get root(): string {
    return this.conn.url.replace(/\/$/, "");
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    /** Errors that are news, not failures (a held job's "pending scheduler release"). */
    benign: (e: { error?: string; description?: string }) => boolean = () => false,
  ): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.root}/slurm/${await this.version()}${path}`, {
      method,
      headers: {
        "X-SLURM-USER-NAME": this.conn.user,
        "X-SLURM-USER-TOKEN": this.conn.token,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new SlurmError(`slurmrestd ${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    const errors = Array.isArray(json.errors)
      ? (json.errors as Array<{ error?: string; error_number?: number; description?: string }>).filter((e) => !benign(e))
      : [];
    if (!res.ok || errors.length > 0) {
      const e = errors[0];
      const err = new SlurmError(
        `slurmrestd ${method} ${path}: HTTP ${res.status}${e ? `, error ${e.error_number ?? "?"}: ${e.error ?? e.description ?? ""}` : ""}`,
      );
      (err as SlurmError & { errorNumber?: number }).errorNumber = e?.error_number;
      throw err;
    }
    return json;
  }

  async ping(): Promise<void> {
    await this.call("GET", "/diag");
  }

  async submit(s: SlurmSubmit): Promise<number> {
    const job = jobDescription(s, await this.version());
    // A held job is accepted with an "error" saying it waits for a release: that is what was asked.
    const r = await this.call(
      "POST",
      "/job/submit",
      { script: s.script, job },
      (e) => s.hold === true && /held state/i.test(e.error ?? ""),
    );
    const id = noVal(r.job_id);
    if (id === undefined) throw new SlurmError("slurmrestd accepted the job but returned no job_id");
    return id;
  }

  /** Task records of a job (every array task once it is split); [] when Slurm no longer knows it. */
  async tasks(jobId: number): Promise<SlurmTaskState[]> {
    let r: Record<string, unknown>;
    try {
      r = await this.call("GET", `/job/${jobId}`);
    } catch (e) {
      // An unknown id answers HTTP 500 with error 2017 "Invalid job id specified", not 404.
      if ((e as { errorNumber?: number }).errorNumber === 2017) return [];
      throw e;
    }
    const jobs = Array.isArray(r.jobs) ? (r.jobs as Array<Record<string, unknown>>) : [];
    return jobs.map(readTask);
  }

  /** Every node of the cluster with its state and partitions. */
  async nodes(): Promise<SlurmNode[]> {
    const r = await this.call("GET", "/nodes");
    const nodes = Array.isArray(r.nodes) ? (r.nodes as Array<Record<string, unknown>>) : [];
    return nodes.map(readNode);
  }

  /** Cancels a job, or one array task as "ARRAYID_INDEX" (a plain array id cancels every task). */
  async cancel(jobId: number | string): Promise<void> {
    try {
      await this.call("DELETE", `/job/${jobId}`);
    } catch (e) {
      if ((e as { errorNumber?: number }).errorNumber === 2017) return;
      throw e;
    }
  }
}

/** Whether array task `i` is in a folded range string like "0-3,7". */
export function inArrayRange(range: string, i: number): boolean {
  // "%N" after the range is a throttle, not part of it.
  const body = range.split("%")[0] ?? "";
  for (const part of body.split(",")) {
    const [a, b] = part.split("-").map((x) => Number.parseInt(x, 10));
    if (a === undefined || Number.isNaN(a)) continue;
    if (i === a || (b !== undefined && !Number.isNaN(b) && i >= a && i <= b)) return true;
  }
  return false;
}

/**
 * Cancels each Slurm job, trying each up to three times a second apart (slurmctld under
 * load times requests out); returns "id: reason" for those that could not be cancelled.
 */
export async function cancelEach(client: Pick<SlurmClient, "cancel">, ids: Iterable<number>, retryMs = 1000): Promise<string[]> {
  const failures: string[] = [];
  for (const id of ids) {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.cancel(id);
        break;
      } catch (e) {
        if (attempt >= 3) {
          failures.push(`${id}: ${(e as Error).message}`);
          break;
        }
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }
  return failures;
}
