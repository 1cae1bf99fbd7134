import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import {
  BUNDLE_ENV_DIR,
  BUNDLE_JOB_FILE,
  type Health,
  type JobEvent,
  JobEvent as JobEventSchema,
  type JobRecord,
  JobSpec,
  type JobSpecInput,
  type RunnerStatus,
  RunnerStatus as RunnerStatusSchema,
} from "../api";
import { packDirectory, unpackToDir } from "../bundle/bundle";
import { onStreamLines } from "../stream-lines";

export class RunnerHttpError extends Error {
  override name = "RunnerHttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RunnerClientOptions {
  url: string;
  token: string;
  /** PEM of a CA to trust (self-signed runner certificate). */
  ca?: string;
}

/**
 * Talks to a runner over its HTTP API. node:http rather than fetch: uploads stream
 * from disk, SSE reads line by line, and a custom CA works without global settings.
 */
export class RunnerClient {
  private readonly base: URL;
  private readonly ca: Buffer | undefined;

  constructor(private readonly opts: RunnerClientOptions) {
    this.base = new URL(opts.url);
    this.ca = opts.ca ? readFileSync(opts.ca) : undefined;
  }

  private request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: Readable,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const url = new URL(path, this.base);
    const mod = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(
        url,
        // No keep-alive: a reused socket the runner has just closed fails an upload with "socket hang up".
        {
          method,
          agent: false,
          headers: { Authorization: `Bearer ${this.opts.token}`, ...headers },
          ...(this.ca ? { ca: this.ca } : {}),
          ...(signal ? { signal } : {}),
        },
        resolve,
      );
      req.on("error", reject);
      if (body) {
        body.on("error", (e) => req.destroy(e));
        body.pipe(req);
      } else req.end();
    });
  }

  private async json<T>(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: Readable,
    signal?: AbortSignal,
  ): Promise<T> {
    const res = await this.request(method, path, headers, body, signal);
    const text = await readAll(res);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new RunnerHttpError(res.statusCode ?? 0, `runner answered ${res.statusCode} with non-JSON: ${text.slice(0, 200)}`);
    }
    if ((res.statusCode ?? 500) >= 400) {
      const err = parsed as { error?: string };
      throw new RunnerHttpError(res.statusCode ?? 0, `runner: HTTP ${res.statusCode}: ${err.error ?? text}`);
    }
    return parsed as T;
  }

  health(): Promise<Health> {
    return this.json("GET", "/v1/health");
  }

  /** The runner's load and heartbeat (`/v1/status`); a runner that does not answer within `timeoutMs` is an error. */
  async status(timeoutMs = 5000): Promise<RunnerStatus> {
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await this.request("GET", "/v1/status", {}, undefined, signal);
    const text = await readAll(res);
    if ((res.statusCode ?? 500) >= 400)
      throw new RunnerHttpError(res.statusCode ?? 0, `runner: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    return RunnerStatusSchema.parse(JSON.parse(text));
  }

  /** Cancels a job, giving up after `timeoutMs` (a runner that stopped answering cannot be waited for). */
  async cancelWithin(id: string, timeoutMs: number): Promise<void> {
    const res = await this.request("DELETE", `/v1/jobs/${encodeURIComponent(id)}`, {}, undefined, AbortSignal.timeout(timeoutMs));
    await readAll(res);
  }

  /** The runner's jobs; with a signal (a timeout), a runner that does not answer in time is an error. */
  async jobs(signal?: AbortSignal): Promise<JobRecord[]> {
    return (await this.json<{ jobs: JobRecord[] }>("GET", "/v1/jobs", {}, undefined, signal)).jobs;
  }

  job(id: string): Promise<JobRecord> {
    return this.json("GET", `/v1/jobs/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<JobRecord> {
    return this.json("DELETE", `/v1/jobs/${encodeURIComponent(id)}`);
  }

  resume(id: string): Promise<JobRecord> {
    return this.json("POST", `/v1/jobs/${encodeURIComponent(id)}/resume`);
  }

  /** Packs the environment folder with the job spec and submits it; a retry with the same key makes one job. */
  async submit(envDir: string, spec: JobSpecInput, idempotencyKey: string = randomUUID()): Promise<{ job: JobRecord; created: boolean }> {
    const checked = JobSpec.parse(spec);
    const send = () =>
      this.request(
        "POST",
        "/v1/jobs",
        { "Content-Type": "application/x-tar", "Idempotency-Key": idempotencyKey },
        packDirectory(envDir, BUNDLE_ENV_DIR, { [BUNDLE_JOB_FILE]: JSON.stringify(checked, null, 2) }),
      );
    let res: http.IncomingMessage;
    try {
      res = await send();
    } catch (e) {
      // The idempotency key makes a retry after a dropped connection safe: at most one job.
      if (!["ECONNRESET", "EPIPE"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
      res = await send();
    }
    const text = await readAll(res);
    const body = JSON.parse(text || "{}") as JobRecord & { error?: string };
    if ((res.statusCode ?? 500) >= 400)
      throw new RunnerHttpError(res.statusCode ?? 0, `runner refused the job: HTTP ${res.statusCode}: ${body.error ?? text}`);
    return { job: body, created: res.statusCode === 201 };
  }

  /**
   * Follows a job's events until it ends (or the signal aborts), reconnecting with
   * Last-Event-ID after a dropped connection so no event is lost or repeated.
   */
  async followEvents(
    id: string,
    onEvent: (ev: JobEvent) => void,
    opts: { signal?: AbortSignal; after?: number; untilEnd?: boolean } = {},
  ): Promise<number> {
    let last = opts.after ?? 0;
    const terminal = new Set(["completed", "failed", "cancelled"]);
    for (let failures = 0; !opts.signal?.aborted; ) {
      try {
        const res = await this.request(
          "GET",
          `/v1/jobs/${encodeURIComponent(id)}/events`,
          { Accept: "text/event-stream", "Last-Event-ID": String(last) },
          undefined,
          opts.signal,
        );
        if ((res.statusCode ?? 500) >= 400)
          throw new RunnerHttpError(res.statusCode ?? 0, `runner: HTTP ${res.statusCode}: ${await readAll(res)}`);
        failures = 0;
        let ended = false;
        await parseSse(res, (data) => {
          const ev = JobEventSchema.parse(JSON.parse(data));
          last = ev.id;
          onEvent(ev);
          if ((opts.untilEnd ?? true) && ev.type === "state" && terminal.has(ev.state)) {
            ended = true;
            res.destroy();
          }
        });
        if (ended) return last;
      } catch (e) {
        if (opts.signal?.aborted) break;
        if (e instanceof RunnerHttpError && e.status < 500) throw e;
        failures += 1;
        if (failures > 30) throw e;
        await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
    return last;
  }

  /**
   * Downloads the job's run folder into `runsDir/<run id>`; returns that folder. Without
   * `follow` it is a snapshot (also while the job runs). With `follow` the folder fills
   * while the job runs, rollout by rollout as each ends, and the call resolves when the
   * job has ended and the folder is complete; a dropped connection follows again.
   */
  async pull(
    id: string,
    runsDir: string,
    opts: { follow?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ dir: string; files: number; state: string }> {
    const once = async () => {
      const res = await this.request(
        "GET",
        `/v1/jobs/${encodeURIComponent(id)}/run${opts.follow ? "?follow=1" : ""}`,
        {},
        undefined,
        opts.signal,
      );
      if ((res.statusCode ?? 500) >= 400)
        throw new RunnerHttpError(res.statusCode ?? 0, `runner: HTTP ${res.statusCode}: ${await readAll(res)}`);
      const runId = String(res.headers["x-rlenv-run-id"] ?? id);
      const dir = `${runsDir.replace(/\/$/, "")}/${runId}`;
      const files = await unpackToDir(res, dir, runId);
      return { dir, files, state: String(res.headers["x-rlenv-job-state"] ?? "") };
    };
    if (!opts.follow) return once();
    for (let failures = 0; ; ) {
      try {
        const r = await once();
        // The stream ends with the job: the state to report is the one it ended in.
        return { ...r, state: (await this.job(id)).state };
      } catch (e) {
        if (opts.signal?.aborted || (e instanceof RunnerHttpError && e.status < 500)) throw e;
        failures += 1;
        if (failures > 30) throw e;
        await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
  }
}

async function readAll(res: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Calls onData with each SSE event's data (multi-line data joined); resolves at the end of
 * the stream, also when it was destroyed (a follower that has seen the job end) or aborted.
 * An error thrown by onData rejects, and ends the stream.
 */
export function parseSse(stream: Readable, onData: (data: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let data: string[] = [];
    let failed = false;
    onStreamLines(stream, (line) => {
      // Nothing after a destroy: what was already buffered is not news for a follower that stopped.
      if (failed || stream.destroyed) return;
      try {
        if (line === "") {
          if (data.length > 0) onData(data.length === 1 ? (data[0] ?? "") : data.join("\n"));
          data = [];
        } else if (line.startsWith("data:")) data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
      } catch (e) {
        failed = true;
        reject(e);
        stream.destroy();
      }
    });
    stream.on("error", (e) => ((e as Error).name === "AbortError" ? resolve() : reject(e)));
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
  });
}
