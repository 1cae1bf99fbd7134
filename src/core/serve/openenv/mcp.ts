import type { ServeContext } from "../serve-context";
import { ServeError, type SessionHandle } from "../session-types";
import { parseReset } from "./actions";
import { invalid, rpcServeError } from "./errors";
import { observationMetadata } from "./observation";
import { forkSession, PROTOCOL, parseForkCount, sessionById, toolsOf, withTemporarySession, countError } from "./session-ops";
import { JsonRpcErrorCode, type JsonRpcResponse, rpcError, rpcSuccess } from "./wire";

/**
 * OpenEnv's MCP JSON-RPC 2.0 handler (http_server.py's mcp_handler): `tools/list`,
 * `tools/call`, and the session methods `openenv/session/create` and `openenv/session/close`,
 * plus rlenv's `openenv/session/fork`. OpenEnv has no `initialize` (it answers
 * METHOD_NOT_FOUND), and neither does rlenv. `bound` is the session of the WebSocket the
 * request came on (WS /mcp, or an `mcp` message on WS /ws); over HTTP a request names its
 * session with `params.session_id`, or runs on a fresh one closed after the call, as OpenEnv's
 * stateless HTTP does.
 */

export interface RpcRequest {
  method: string;
  params: Record<string, unknown>;
  id: string | number | null;
}

/** JsonRpcRequest (extra="forbid"): jsonrpc "2.0", method, params an object, id a string, an integer or null. */
export function parseRpcRequest(raw: unknown): RpcRequest | JsonRpcResponse {
  const bad = (why: string) => rpcError(null, JsonRpcErrorCode.INVALID_REQUEST, `Invalid request: ${why}`);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return bad("must be a JSON object");
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!["jsonrpc", "method", "params", "id"].includes(key)) return bad(`${key}: extra field not permitted`);
  }
  if (r.jsonrpc !== "2.0") return bad('jsonrpc: must be "2.0"');
  if (typeof r.method !== "string") return bad("method: must be a string");
  const id = r.id ?? null;
  if (id !== null && typeof id !== "string" && !Number.isInteger(id)) return bad("id: must be a string or an integer");
  const params = r.params ?? {};
  if (typeof params !== "object" || params === null || Array.isArray(params)) return bad("params: must be an object");
  return { method: r.method, params: params as Record<string, unknown>, id: id as string | number | null };
}

/** A tool's answer as MCP's CallToolResult, plus the episode's reward and facts for a client that plays over MCP only. */
async function callTool(ctx: ServeContext, session: SessionHandle, params: Record<string, unknown>): Promise<unknown> {
  const name = params.name;
  if (typeof name !== "string" || name === "") throw invalid("params.name", "Missing 'name' in params");
  const args = params.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw invalid("params.arguments", "must be an object");
  // An MCP client never resets: its first call starts the episode (task by params.task_id / seed, else the next).
  if (session.state().episode_id === null) await session.reset(parseReset(pick(params), "params"));
  const started = performance.now();
  const obs = await session.step([{ name, arguments: args as Record<string, unknown> }]);
  ctx.metrics.step(PROTOCOL, performance.now() - started);
  ctx.sessions.touch(session.id);
  if (obs.done && obs.score?.infra) {
    throw new ServeError("infra", `episode ${obs.episode_id} failed in the machinery: ${obs.score.reason ?? obs.score.status}`);
  }
  const r = obs.tool_results[0];
  const text = r?.content ?? "";
  return {
    content: [{ type: "text", text }],
    isError: r?.is_error ?? false,
    data: text,
    done: obs.done,
    reward: obs.done && obs.score ? obs.score.reward : null,
    metadata: observationMetadata(obs, session.id),
  };
}

function pick(params: Record<string, unknown>): Record<string, unknown> {
  const { task_id, seed, episode_id, environment } = params;
  return { task_id, seed, episode_id, environment };
}

async function createSession(ctx: ServeContext, params: Record<string, unknown>): Promise<unknown> {
  const reset = parseReset(pick(params), "params");
  const session = ctx.sessions.open({ protocol: PROTOCOL });
  if (reset.task_id === undefined && reset.seed === undefined && reset.environment === undefined) {
    return { session_id: session.id };
  }
  try {
    const obs = await session.reset(reset);
    return { session_id: session.id, episode_id: obs.episode_id, task_id: obs.task_id, metadata: observationMetadata(obs, session.id) };
  } catch (e) {
    await ctx.sessions.close(session.id);
    throw e;
  }
}

async function closeSession(ctx: ServeContext, params: Record<string, unknown>, bound?: SessionHandle): Promise<JsonRpcResponse | unknown> {
  const target = params.session_id;
  if (typeof target !== "string" || target === "") throw invalid("params.session_id", "Invalid params - 'session_id' is required");
  if (bound && target === bound.id) return "bound";
  sessionById(ctx, target, "params.session_id");
  await ctx.sessions.close(target);
  return { session_id: target, closed: true };
}

async function dispatch(ctx: ServeContext, req: RpcRequest, bound?: SessionHandle): Promise<JsonRpcResponse> {
  const { method, params, id } = req;
  const session = () => bound ?? (params.session_id !== undefined ? sessionById(ctx, params.session_id, "params.session_id") : undefined);
  switch (method) {
    case "tools/list": {
      const environment = typeof params.environment === "string" ? params.environment : undefined;
      const tools = toolsOf(ctx, session(), environment).map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.parameters,
      }));
      return rpcSuccess(id, { tools });
    }
    case "tools/call": {
      const s = session();
      const result = s ? await callTool(ctx, s, params) : await withTemporarySession(ctx, (t) => callTool(ctx, t, params));
      return rpcSuccess(id, result);
    }
    case "openenv/session/create":
      return rpcSuccess(id, bound ? { session_id: bound.id } : await createSession(ctx, params));
    case "openenv/session/close": {
      const result = await closeSession(ctx, params, bound);
      if (result === "bound") {
        return rpcError(id, JsonRpcErrorCode.INVALID_REQUEST, "Cannot close active WebSocket-managed session via MCP method");
      }
      return rpcSuccess(id, result);
    }
    case "openenv/session/fork": {
      const s = session();
      if (!s) throw invalid("params.session_id", "Invalid params - 'session_id' is required");
      return rpcSuccess(id, await forkSession(ctx, s, parseForkCount(params, "params")));
    }
    default:
      return rpcError(id, JsonRpcErrorCode.METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}

/** One JSON-RPC request, answered; never throws (every failure is a JSON-RPC error with the request's id). */
export async function handleRpc(ctx: ServeContext, raw: unknown, bound?: SessionHandle): Promise<JsonRpcResponse> {
  const req = parseRpcRequest(raw);
  if (!("method" in req)) {
    ctx.metrics.error(PROTOCOL, "invalid");
    return req;
  }
  if (bound) ctx.sessions.touch(bound.id);
  try {
    return await dispatch(ctx, req, bound);
  } catch (e) {
    countError(ctx, e);
    return rpcServeError(req.id, e);
  }
}
