import { holdSessionSocket } from "./ws-session";
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { ServeContext, WsRoute } from "../serve-context";
import { rpcServeError } from "./errors";
import { handleRpc } from "./mcp";
import { PROTOCOL, countError } from "./session-ops";
import { sendJson } from "./ws-socket";
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
      holdSessionSocket(ctx, held, ws, sessionId, {
        badJson: (error) => rpcError(null, JsonRpcErrorCode.PARSE_ERROR, `Parse error: ${error}`),
        message: async (value) => sendJson(ws, await handleRpc(ctx, value, session)),
      });
    },
  };
}
