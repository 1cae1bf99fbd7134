import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { ServeContext, WsRoute } from "../serve-context";
import { rpcServeError } from "./errors";
import { handleRpc } from "./mcp";
import { PROTOCOL, countError } from "./session-ops";
import { parseJson, sendJson, serialHandler } from "./ws-socket";
import { JsonRpcErrorCode, rpcError } from "./wire";

/**
 * WS /mcp: bare JSON-RPC 2.0 over a WebSocket, one session per connection (OpenEnv's
 * mcp_websocket_endpoint). A full house answers SERVER_ERROR with the counts, then closes.
 */
export function wsMcpRoute(ctx: ServeContext, held: Set<string>): WsRoute {
  return {
    path: "/mcp",
    accept(ws: WebSocket, _req: IncomingMessage) {
      let sessionId: string;
      let session: ReturnType<ServeContext["sessions"]["open"]>;
      try {
        session = ctx.sessions.open({ protocol: PROTOCOL });
        sessionId = session.id;
      } catch (e) {
        countError(ctx, e);
        sendJson(ws, rpcServeError(null, e));
        ws.close();
        return;
      }
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
          sendJson(ws, rpcError(null, JsonRpcErrorCode.PARSE_ERROR, `Parse error: ${parsed.error}`));
          return;
        }
        sendJson(ws, await handleRpc(ctx, parsed.value, session));
      });
    },
  };
}
