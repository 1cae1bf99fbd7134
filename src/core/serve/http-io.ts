import type { IncomingMessage, ServerResponse } from "node:http";
import { ServeError } from "./session-types";

/** The largest request body a server reads (a tool call's arguments with a file in them fit well within it). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The request's body as JSON; an empty body is `{}`. Too large or not JSON: ServeError invalid. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new ServeError("invalid", `the request body is over ${limit} bytes`, "body");
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ServeError("invalid", `the request body is not JSON: ${(e as Error).message}`, "body");
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
  res.end(text);
}
