import type http from "node:http";
import { BundleError } from "../bundle/bundle";
import { JobSpecError } from "../jobs/job-intake";

/** A request the runner refuses, with the HTTP status and (for a bad header) the field. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/**
 * A failed request's answer: `{ error, field?, problems? }` with the status the error
 * carries (500 for the unexpected), or a dropped socket when the answer had already begun.
 */
export function replyWithError(err: unknown, req: http.IncomingMessage, res: http.ServerResponse): void {
  const status = err instanceof HttpError ? err.status : err instanceof BundleError ? err.status : err instanceof JobSpecError ? 400 : 500;
  const field = err instanceof HttpError || err instanceof JobSpecError ? err.field : undefined;
  const problems = err instanceof JobSpecError ? err.problems : undefined;
  if (!res.headersSent)
    sendJson(res, status, { error: (err as Error).message, ...(field ? { field } : {}), ...(problems ? { problems } : {}) });
  else res.destroy();
  if (status === 413) lingerThenClose(req);
}

/**
 * An oversized body is not stored, but closing the socket while the client is still
 * sending resets the connection, and the client's kernel may then drop the 413 it had
 * received: the client sees a network error instead (a race lost under load). As web
 * servers do ("lingering close"), the rest is read and discarded, up to a bounded time
 * and amount, before the socket is dropped; a body that ends in time keeps the connection.
 */
export function lingerThenClose(req: http.IncomingMessage, maxBytes = 64 * 1024 * 1024, maxMs = 5_000): void {
  let seen = 0;
  const drop = () => {
    clearTimeout(timer);
    req.destroy();
  };
  const timer = setTimeout(drop, maxMs);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) drop();
  });
  req.on("end", () => clearTimeout(timer));
  req.on("error", drop);
  req.resume();
}
