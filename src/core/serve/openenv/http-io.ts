import type { IncomingMessage, ServerResponse } from "node:http";
import { invalid } from "./errors";

/** The most a request body may be: tool arguments can carry whole files, as OpenEnv's 100 MB WS frames can. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The JSON body, `undefined` when empty; a body that is not JSON, or too big, is a malformed request naming "body". */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw invalid("body", `request body over ${limit} bytes`);
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalid("body", `JSON decode error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
