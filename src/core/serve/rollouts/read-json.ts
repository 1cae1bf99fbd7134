import type { IncomingMessage } from "node:http";
import { ServeError } from "../session-types";

/** Largest request body taken: a batch request is a few ids and settings. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The request's JSON body; a ServeError("invalid") when it is too large, not JSON or not an object. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new ServeError("invalid", `body: larger than ${limit} bytes`, "body");
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new ServeError("invalid", `body: not JSON (${(e as Error).message})`, "body");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ServeError("invalid", "body: must be a JSON object", "body");
  return body;
}
