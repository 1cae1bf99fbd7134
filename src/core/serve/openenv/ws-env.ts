import { holdSessionSocket } from "./ws-session";
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { ServeContext, WsRoute } from "../serve-context";
import { ServeError, type SessionHandle } from "../session-types";
import { invalid, wsError } from "./errors";
import { handleRpc } from "./mcp";
import { forkSession, PROTOCOL, parseForkCount, resetSession, sessionState, stepSession, countError } from "./session-ops";
import { sendJson } from "./ws-socket";
import { WSErrorCode, type WsReply } from "./wire";

/**
 * WS /ws: OpenEnv's persistent session. One session per connection (closed with the socket);
 * messages `reset`, `step`, `state`, `close`, `mcp` in the `{type, data}` envelope, answered by
 * `observation`, `state`, `mcp` or `error`. rlenv adds `fork` (data {n}), answered by `fork`
 * with the new sessions' ids; a connection to `/ws?session_id=ID` takes over such a session (a
 * fork, or one made by `openenv/session/create`) instead of opening a new one.
 */

/** Which fields each message may carry (OpenEnv's WS models are extra="forbid"); `data` required where OpenEnv requires it. */
const SHAPES: Record<string, { fields: readonly string[]; dataRequired: boolean }> = {
  reset: { fields: ["type", "data"], dataRequired: false },
  step: { fields: ["type", "data"], dataRequired: true },
  state: { fields: ["type"], dataRequired: false },
  close: { fields: ["type"], dataRequired: false },
  mcp: { fields: ["type", "data"], dataRequired: true },
  fork: { fields: ["type", "data"], dataRequired: false },
};

function checkShape(type: string, msg: Record<string, unknown>): void {
  const shape = SHAPES[type];
  if (!shape) return;
  for (const key of Object.keys(msg)) {
    if (!shape.fields.includes(key)) throw invalid(key, `extra field not permitted in a ${type} message`);
  }
  if (shape.dataRequired && msg.data === undefined) throw invalid("data", `a ${type} message needs data`);
  if (msg.data !== undefined && (typeof msg.data !== "object" || msg.data === null || Array.isArray(msg.data))) {
    throw invalid("data", "must be an object");
  }
}

/** One message's reply; "close" when the client asked to end the session. */
async function answer(ctx: ServeContext, session: SessionHandle, msg: Record<string, unknown>): Promise<WsReply | "close"> {
  const type = msg.type;
  if (typeof type !== "string") throw invalid("type", "must be a string (reset, step, state, close, mcp or fork)");
  if (!(type in SHAPES)) {
    return { type: "error", data: { message: `Unknown message type: ${type}`, code: WSErrorCode.UNKNOWN_TYPE } };
  }
  checkShape(type, msg);
  switch (type) {
    case "reset":
      return { type: "observation", data: { ...(await resetSession(ctx, session, msg.data, "data")) } };
    case "step":
      return { type: "observation", data: { ...(await stepSession(ctx, session, msg.data, "data")) } };
    case "state":
      ctx.sessions.touch(session.id);
      return { type: "state", data: sessionState(session) };
    case "mcp":
      return { type: "mcp", data: { ...(await handleRpc(ctx, msg.data, session)) } };
    case "fork":
      return { type: "fork", data: await forkSession(ctx, session, parseForkCount(msg.data, "data")) };
    default:
      return "close";
  }
}

/** The connection's session: the one `?session_id=` names (not already held by another socket), else a new one. */
function claimSession(ctx: ServeContext, req: IncomingMessage, held: Set<string>): SessionHandle {
  const url = new URL(req.url ?? "/ws", "http://localhost");
  const wanted = url.searchParams.get("session_id");
  if (wanted === null) return ctx.sessions.open({ protocol: PROTOCOL });
  const session = ctx.sessions.get(wanted);
  if (!session) throw new ServeError("not_found", `Unknown session_id: ${wanted}`, "session_id");
  if (held.has(wanted)) throw invalid("session_id", `session ${wanted} is already held by another connection`);
  return session;
}

export function wsEnvRoute(ctx: ServeContext, held: Set<string>): WsRoute {
  return {
    path: "/ws",
    accept(ws: WebSocket, req: IncomingMessage) {
      let session: SessionHandle;
      try {
        session = claimSession(ctx, req, held);
      } catch (e) {
        countError(ctx, e);
        sendJson(ws, wsError(e));
        ws.close();
        return;
      }
      holdSessionSocket(ctx, held, ws, session.id, {
        badJson: (error) => ({ type: "error", data: { message: `Invalid JSON: ${error}`, code: WSErrorCode.INVALID_JSON } }),
        message: async (msg, release) => {
          try {
            if (typeof msg !== "object" || msg === null || Array.isArray(msg))
              throw invalid("type", "a message must be an object {type, data}");
            const reply = await answer(ctx, session, msg as Record<string, unknown>);
            if (reply === "close") {
              release();
              ws.close();
              return;
            }
            if (reply.type === "error") ctx.metrics.error(PROTOCOL, "invalid");
            sendJson(ws, reply);
          } catch (e) {
            countError(ctx, e);
            sendJson(ws, wsError(e));
          }
        },
      });
    },
  };
}
