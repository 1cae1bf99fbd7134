import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { replyWithError } from "./http-reply";
import type { JobManager } from "../jobs/jobs";
import { runnerMetrics } from "./metrics";
import type { RunnerApi } from "./server-handlers";
import { routeRequest } from "./server-routes";

export interface RunnerServerOptions {
  jobs: JobManager;
  token: string;
  version: string;
  host?: string;
  port: number;
  tls?: { cert: string; key: string };
  /** Largest accepted upload (bytes of the tar as sent). */
  maxUploadBytes?: number;
  /** How long a whole request (headers and body: an upload) may take to arrive. */
  requestTimeoutMs?: number;
  /** How long a connection may stay silent, inside a request or between two of them, before it is closed. */
  idleTimeoutMs?: number;
}

/** A 256 MiB upload at 1 MB/s arrives within it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
/** Longer than the event stream's ping (15 s), far shorter than a stalled upload left open. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

export const DEFAULT_MAX_UPLOAD = 256 * 1024 * 1024;

/** The runner's HTTP API (see api.ts and server-routes.ts). Every route needs the bearer token. */
export async function startRunnerServer(opts: RunnerServerOptions): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const api: RunnerApi = {
    jobs: opts.jobs,
    version: opts.version,
    maxUpload: opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD,
    // Made now, not at the first scrape: it counts from the job manager's events.
    metrics: runnerMetrics(opts.jobs),
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    routeRequest(api, opts.token, req, res).catch((err: unknown) => replyWithError(err, req, res));
  };
  const server = opts.tls
    ? https.createServer({ cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key) }, handler)
    : http.createServer(handler);
  // Bounds on what a client sends: a request must arrive whole in time and never stall, so slow or
  // abandoned uploads cannot pile up connections. These time the request, not the reply: an event
  // stream or a followed pull is answered for as long as it lasts (those handlers lift the idle bound).
  server.requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(30_000, server.requestTimeout);
  server.timeout = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  await listen(server, opts.port, opts.host ?? "127.0.0.1");
  return {
    server,
    url: `${opts.tls ? "https" : "http"}://${hostPort(server)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
}

/** host:port the server listens on, an IPv6 address in brackets. */
function hostPort(server: http.Server): string {
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return `${host}:${addr.port}`;
}
