import type { RawData, WebSocket } from "ws";

/**
 * A WebSocket's messages handled one at a time, in order, as OpenEnv's server loop does
 * (receive, answer, receive): a step never overtakes the reset before it.
 */
export function serialHandler(ws: WebSocket, handle: (text: string) => Promise<void>): void {
  let queue = Promise.resolve();
  ws.on("message", (raw: RawData) => {
    const text = Array.isArray(raw) ? Buffer.concat(raw).toString("utf8") : Buffer.from(raw as ArrayBuffer).toString("utf8");
    queue = queue.then(() => handle(text)).catch(() => undefined);
  });
}

export function sendJson(ws: WebSocket, value: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(value));
}

/** JSON.parse, or the parser's complaint. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
