import type { WebSocket } from "ws";
import type { ServeContext } from "../serve-context";
import { PROTOCOL } from "./session-ops";
import { parseJson, sendJson, serialHandler } from "./ws-socket";

/** How one WebSocket endpoint answers: a parsed message, and a text that is no JSON (each in its own wire shape). */
export interface SessionSocketHandlers {
  /** `release` closes the session now (a `close` message); the socket closes itself after. */
  message(value: unknown, release: () => void): Promise<void>;
  badJson(error: string): unknown;
}

/**
 * A socket bound to its session for its whole life, as both OpenEnv endpoints (WS /ws, WS /mcp)
 * hold theirs: the session is marked held (no second connection may claim it), closed once when
 * the socket closes or fails, and messages are answered one at a time, in order, none after the
 * session was released.
 */
export function holdSessionSocket(ctx: ServeContext, held: Set<string>, ws: WebSocket, sessionId: string, on: SessionSocketHandlers): void {
  held.add(sessionId);
  let closed = false;
  const release = () => {
    if (closed) return;
    closed = true;
    held.delete(sessionId);
    void ctx.sessions.close(sessionId).catch(() => undefined);
  };
  ws.on("close", release);
  ws.on("error", release);
  serialHandler(ws, async (text) => {
    if (closed) return;
    const parsed = parseJson(text);
    if (!parsed.ok) {
      ctx.metrics.error(PROTOCOL, "invalid");
      sendJson(ws, on.badJson(parsed.error));
      return;
    }
    await on.message(parsed.value, release);
  });
}
