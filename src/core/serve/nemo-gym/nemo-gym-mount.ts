import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRoute, ProtocolMount, ServeContext } from "../serve-context";
import { ServeError } from "../session-types";
import { agentResponses } from "./agent-responses";
import { AgentRun } from "./agent-run";
import { sendError, toHttpError } from "./http-errors";
import { PROTOCOL, ResourcesServer } from "./resources-server";
import type { PolicyTarget } from "./row-fields";
import { SessionCookie } from "./session-cookie";

export type { PolicyTarget } from "./row-fields";

/** What the server's command line may add: the policy /run and /v1/responses play against when a row names none. */
export interface NemoGymOptions {
  policy?: PolicyTarget;
}

/**
 * Paths a tool cannot take: the resources and agent servers' own, and those of the other
 * protocols on the same server (OpenEnv, the rollouts stream, /metrics). A tool with one of
 * these names is still callable by the model through /run and /v1/responses (the engine plays
 * it), only not as `POST /{tool}`.
 */
export const RESERVED_PATHS = new Set([
  "seed_session",
  "verify",
  "aggregate_metrics",
  "run",
  "reverify_mode",
  "reset",
  "step",
  "state",
  "health",
  "metadata",
  "schema",
  "mcp",
  "ws",
  "metrics",
  "v1",
]);

/**
 * NeMo Gym's resources server (`/seed_session`, `/{tool}`, `/verify`, `/aggregate_metrics`, the
 * session cookie) and agent server (`/run`, `/v1/responses`) over one ServeContext: see
 * docs/serve/nemo-gym.md.
 */
export function nemoGymMount(ctx: ServeContext, opts: NemoGymOptions = {}): ProtocolMount {
  const resources = new ResourcesServer(ctx, new SessionCookie());
  const policy = opts.policy ?? ctx.policy;
  const run = new AgentRun(ctx, policy);
  const route = (path: string, fn: (req: IncomingMessage, res: ServerResponse) => Promise<void>): HttpRoute => ({
    method: "POST",
    path,
    async handle(req, res) {
      try {
        await fn(req, res);
      } catch (e) {
        const err = toHttpError(e);
        // The registry counts the capacity refusals of its own open(); ours (/run) are counted here.
        if (!(e instanceof ServeError && e.kind === "capacity")) ctx.metrics.error(PROTOCOL, err.kind);
        // A body not read to its end (an early refusal) must not be left in the socket.
        req.resume();
        sendError(res, err);
      }
    },
  });
  const toolNames = new Set<string>();
  for (const served of ctx.environments.list) for (const t of served.tools) if (!RESERVED_PATHS.has(t.name)) toolNames.add(t.name);
  return {
    name: PROTOCOL,
    http: [
      route("/seed_session", (req, res) => resources.seedSession(req, res)),
      route("/verify", (req, res) => resources.verify(req, res)),
      route("/aggregate_metrics", (req, res) => resources.aggregate(req, res)),
      route("/run", (req, res) => run.handle(req, res)),
      route("/v1/responses", (req, res) => agentResponses(resources, policy, ctx.signal, req, res)),
      ...[...toolNames].map((name) => route(`/${name}`, (req, res) => resources.tool(name, req, res))),
    ],
    ws: [],
  };
}
