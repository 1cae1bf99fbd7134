import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRoute, ServeContext } from "../serve-context";
import { httpError, invalid } from "./errors";
import { handleRpc } from "./mcp";
import { metadataOf, schemaOf } from "./describe";
import { readJsonBody, sendJson } from "../http-io";
import { PROTOCOL, resetSession, sessionById, sessionState, stepSession, withTemporarySession, countError } from "./session-ops";
import { JsonRpcErrorCode, rpcError } from "./wire";

/**
 * OpenEnv's HTTP routes. Its /reset and /step are stateless: each request builds a fresh
 * environment, plays the one call and closes it (http_server.py's reset_handler and
 * step_handler). rlenv does the same with a session of its own per request (so /step first
 * resets the task the body names, by task_id or seed, then plays the action, then closes,
 * writing a trajectory of that one-step episode); GET /state answers a fresh State. rlenv's
 * extension: a body (or /state query) naming `session_id` acts on that live session instead,
 * one made by `openenv/session/create` or by a fork.
 */

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("body", "must be a JSON object");
  return body as Record<string, unknown>;
}

async function reset(ctx: ServeContext, req: IncomingMessage): Promise<unknown> {
  const body = objectBody(await readJsonBody(req));
  if (body.session_id !== undefined) return resetSession(ctx, sessionById(ctx, body.session_id, "session_id"), body, "body");
  return withTemporarySession(ctx, (s) => resetSession(ctx, s, body, "body"));
}

async function step(ctx: ServeContext, req: IncomingMessage): Promise<unknown> {
  const body = objectBody(await readJsonBody(req));
  if (body.action === undefined) throw invalid("action", "Field required");
  if (body.timeout_s !== undefined && body.timeout_s !== null && !(typeof body.timeout_s === "number" && body.timeout_s > 0)) {
    throw invalid("timeout_s", "must be a number > 0");
  }
  if (body.session_id !== undefined) return stepSession(ctx, sessionById(ctx, body.session_id, "session_id"), body.action, "action");
  return withTemporarySession(ctx, async (s) => {
    const action = body.action as { type?: unknown };
    if (action?.type !== "list_tools") await resetSession(ctx, s, body, "body");
    return stepSession(ctx, s, body.action, "action");
  });
}

function state(ctx: ServeContext, url: URL): unknown {
  const id = url.searchParams.get("session_id");
  if (id !== null) return sessionState(sessionById(ctx, id, "session_id"));
  return { episode_id: null, step_count: 0 };
}

/** A JSON answer, or OpenEnv's error shape (422 detail list for a malformed body). */
function route(ctx: ServeContext, method: HttpRoute["method"], path: string, work: (req: IncomingMessage, url: URL) => unknown): HttpRoute {
  return {
    method,
    path,
    async handle(req: IncomingMessage, res: ServerResponse, url: URL) {
      try {
        sendJson(res, 200, await work(req, url));
      } catch (e) {
        countError(ctx, e);
        const { status, body } = httpError(e);
        sendJson(res, status, body);
      }
    },
  };
}

/** POST /mcp: always 200 with a JSON-RPC body, as OpenEnv's mcp_endpoint. */
async function mcpPost(ctx: ServeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw: unknown;
  try {
    raw = await readJsonBody(req);
  } catch {
    ctx.metrics.error(PROTOCOL, "invalid");
    sendJson(res, 200, rpcError(null, JsonRpcErrorCode.PARSE_ERROR));
    return;
  }
  sendJson(res, 200, await handleRpc(ctx, raw));
}

export function httpRoutes(ctx: ServeContext): HttpRoute[] {
  return [
    route(ctx, "POST", "/reset", (req) => reset(ctx, req)),
    route(ctx, "POST", "/step", (req) => step(ctx, req)),
    route(ctx, "GET", "/state", (_req, url) => state(ctx, url)),
    route(ctx, "GET", "/health", () => ({ status: "healthy" })),
    route(ctx, "GET", "/metadata", () => metadataOf(ctx)),
    route(ctx, "GET", "/schema", () => schemaOf()),
    { method: "POST", path: "/mcp", handle: (req, res) => mcpPost(ctx, req, res) },
  ];
}
