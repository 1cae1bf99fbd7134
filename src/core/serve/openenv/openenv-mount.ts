import type { ProtocolMount, ServeContext } from "../serve-context";
import { httpRoutes } from "./http-routes";
import { wsEnvRoute } from "./ws-env";
import { wsMcpRoute } from "./ws-mcp";

/**
 * `rlenv serve`'s OpenEnv endpoints (meta-pytorch/OpenEnv's HTTPEnvServer): WS /ws, WS /mcp,
 * POST /reset, POST /step, GET /state, GET /health, GET /metadata, GET /schema, POST /mcp.
 * See docs/serve/openenv.md for what rlenv chose where OpenEnv leaves a choice open.
 */
export function openEnvMount(ctx: ServeContext): ProtocolMount {
  /** Sessions a WebSocket holds now: a `?session_id=` connection may not take one another socket holds. */
  const held = new Set<string>();
  return { name: "openenv", http: httpRoutes(ctx), ws: [wsEnvRoute(ctx, held), wsMcpRoute(ctx, held)] };
}
