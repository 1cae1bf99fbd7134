import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { Transform, type TransformCallback } from "node:stream";
import Docker from "dockerode";
import type { Health, JobEvent } from "./api";
import { BundleError } from "./bundle";
import { queryGpus } from "./gpus";
import { type JobManager, JobSpecError } from "./jobs";
import { eventJson } from "./journal";
import { runnerMetrics } from "./metrics";
import { runnerStatus } from "./runner-status";
import { streamRunFolder } from "./run-stream";
import { bearerMatches } from "./token";

export interface RunnerServerOptions {
  jobs: JobManager;
  token: string;
  version: string;
  host?: string;
  port: number;
  tls?: { cert: string; key: string };
  /** Largest accepted upload (bytes of the tar as sent). */
  maxUploadBytes?: number;
}

export const DEFAULT_MAX_UPLOAD = 256 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Counts bytes through and fails the stream past the limit (uploads without Content-Length). */
class SizeLimit extends Transform {
  private seen = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) cb(new BundleError(`upload larger than ${this.max} bytes`, 413));
    else cb(null, chunk);
  }
}

/** The runner's HTTP API (see api.ts). Every route needs the bearer token. */
export async function startRunnerServer(opts: RunnerServerOptions): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const { jobs } = opts;
  const maxUpload = opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
  // Made now, not at the first scrape: it counts from the job manager's events.
  const metrics = runnerMetrics(jobs);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    route(req, res).catch((err: unknown) => {
      const status =
        err instanceof HttpError ? err.status : err instanceof BundleError ? err.status : err instanceof JobSpecError ? 400 : 500;
      const field = err instanceof HttpError || err instanceof JobSpecError ? err.field : undefined;
      const problems = err instanceof JobSpecError ? err.problems : undefined;
      if (!res.headersSent)
        sendJson(
          res,
          status,
          { error: (err as Error).message, ...(field ? { field } : {}), ...(problems ? { problems } : {}) },
          status === 413 ? { Connection: "close" } : {},
        );
      else res.destroy();
      // An oversized body is not read to its end; dropping the socket stops the client.
      if (status === 413) req.destroy();
    });
  };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://runner");
    if (!bearerMatches(req.headers.authorization, opts.token)) {
      req.resume();
      res.setHeader("WWW-Authenticate", 'Bearer realm="rlenv-runner"');
      throw new HttpError(401, req.headers.authorization ? "wrong token" : "missing bearer token (Authorization: Bearer …)");
    }
    const parts = url.pathname.split("/").filter(Boolean);
    const method = req.method ?? "GET";
    if (method === "GET" && url.pathname === "/metrics") {
      const m = await metrics.render();
      res.writeHead(200, { "Content-Type": m.contentType });
      res.end(m.text);
      return;
    }
    if (parts[0] !== "v1") throw new HttpError(404, `no route ${method} ${url.pathname}`);
    if (method === "GET" && parts[1] === "health" && parts.length === 2) {
      sendJson(res, 200, await health(opts));
      return;
    }
    if (method === "GET" && parts[1] === "status" && parts.length === 2) {
      sendJson(res, 200, await runnerStatus(opts.version, jobs));
      return;
    }
    if (parts[1] !== "jobs") throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const id = parts[2];
    if (!id) {
      if (method === "GET") return sendJson(res, 200, { jobs: jobs.list() });
      if (method === "POST") return submit(req, res);
      throw new HttpError(405, `${method} not allowed on /v1/jobs`);
    }
    const job = jobs.get(id);
    if (!job) throw new HttpError(404, `no job ${id}`);
    const sub = parts[3];
    if (!sub && method === "GET") return sendJson(res, 200, job);
    if (!sub && method === "DELETE") return sendJson(res, 200, await jobs.cancel(id));
    if (sub === "events" && method === "GET") return streamEvents(req, res, id, url);
    if (sub === "resume" && method === "POST") {
      req.resume();
      return sendJson(res, 202, jobs.resume(id));
    }
    if (sub === "run" && method === "GET") {
      // follow=1: the tar grows with the run and ends with the job (see run-stream.ts).
      const follow = url.searchParams.get("follow") === "1";
      const { stream, close } = streamRunFolder(jobs, id, job.run_id, { follow });
      // With follow the state header is the state at the start; the job's end ends the tar.
      res.writeHead(200, { "Content-Type": "application/x-tar", "X-Rlenv-Run-Id": job.run_id, "X-Rlenv-Job-State": job.state });
      res.on("close", close);
      stream.pipe(res);
      return;
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  };

  const submit = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    // Refused before a byte is read or written.
    if (Number.isFinite(declared) && declared > maxUpload)
      throw new BundleError(`upload of ${declared} bytes is larger than the limit of ${maxUpload}`, 413);
    const key = headerValue(req.headers["idempotency-key"]);
    if (key !== undefined && !/^[A-Za-z0-9_.:-]{1,200}$/.test(key))
      throw new HttpError(400, "Idempotency-Key: 1–200 characters of [A-Za-z0-9_.:-]", "Idempotency-Key");
    const limited = req.pipe(new SizeLimit(maxUpload));
    req.on("error", (e) => limited.destroy(e));
    const { job, created } = await jobs.submit(limited, key);
    sendJson(res, created ? 201 : 200, job, { Location: `/v1/jobs/${job.id}` });
  };

  const streamEvents = (req: http.IncomingMessage, res: http.ServerResponse, id: string, url: URL) => {
    const lastId = Number(headerValue(req.headers["last-event-id"]) ?? url.searchParams.get("after") ?? 0) || 0;
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    let sent = lastId;
    // Events of one tick (a batch of rollout ends) leave as one write, one HTTP chunk.
    let queued: string[] = [];
    const send = () => {
      if (queued.length > 0 && !res.destroyed) res.write(queued.join(""));
      queued = [];
    };
    const write = (ev: JobEvent) => {
      if (ev.id <= sent) return;
      sent = ev.id;
      if (queued.length === 0) process.nextTick(send);
      queued.push(`id: ${ev.id}\nevent: ${ev.type}\ndata: ${eventJson(ev)}\n\n`);
    };
    // Subscribe first, then replay from the journal: nothing falls between the two, and
    // `write` drops what was already sent.
    const buffered: JobEvent[] = [];
    let replaying = true;
    const onEvent = (jobId: string, ev: JobEvent) => {
      if (jobId !== id) return;
      if (replaying) buffered.push(ev);
      else write(ev);
    };
    jobs.on("event", onEvent);
    for (const ev of jobs.eventsAfter(id, lastId)) write(ev);
    replaying = false;
    for (const ev of buffered) write(ev);
    const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
    req.on("close", () => {
      clearInterval(ping);
      jobs.off("event", onEvent);
    });
  };

  const server = opts.tls
    ? https.createServer({ cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key) }, handler)
    : http.createServer(handler);
  server.requestTimeout = 0; // SSE streams and large pulls stay open
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `${opts.tls ? "https" : "http"}://${host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function health(opts: RunnerServerOptions): Promise<Health> {
  const [docker, gpu] = await Promise.all([dockerStatus(), queryGpus()]);
  return {
    ok: true,
    version: opts.version,
    docker,
    gpus: gpu.gpus,
    ...(gpu.error ? { gpu_error: gpu.error } : {}),
    capacity: { concurrent_jobs: opts.jobs.capacity, running: opts.jobs.runningCount() },
    queue: opts.jobs.queued(),
    executors: opts.jobs.executorKinds(),
  };
}

async function dockerStatus(): Promise<Health["docker"]> {
  try {
    const v = await Promise.race([
      new Docker().version(),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error("no answer in 3 s")), 3000)),
    ]);
    return { available: true, detail: `Docker ${v.Version}` };
  } catch (e) {
    return { available: false, detail: (e as Error).message };
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}
