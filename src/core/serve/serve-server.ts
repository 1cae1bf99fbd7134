import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import { sendJson, sendText } from "./http-io";
import { authorized, isLoopback } from "./serve-auth";
import type { HttpRoute, ProtocolMount, ServeContext, WsRoute } from "./serve-context";
import { PromServeMetrics } from "./serve-metrics";
import { ServedEnvironmentSet, type ServeLoadOptions } from "./served-environments";
import { Sessions } from "./session-registry";
import { ServeError } from "./session-types";

export interface ServeServerOptions extends ServeLoadOptions {
  dirs: readonly string[];
  port: number;
  /** Default 127.0.0.1; any other address needs a token. */
  host?: string;
  token?: string;
  maxSessions: number;
  /** 0: never reap. */
  idleTimeoutMs: number;
  /** The protocols to answer (each adds its routes). */
  protocols: ReadonlyArray<(ctx: ServeContext) => ProtocolMount>;
}

export interface ServeServer {
  readonly url: string;
  readonly port: number;
  readonly ctx: ServeContext;
  /** Closes every session and sandbox, the run folders, then the listener (SIGTERM's path). */
  close(): Promise<void>;
}

/** Starts `rlenv serve`: environments loaded and readied, then the listener; throws before listening when one cannot be served. */
export async function startServeServer(o: ServeServerOptions): Promise<ServeServer> {
  const host = o.host ?? "127.0.0.1";
  if (!o.token && !isLoopback(host))
    throw new Error(`--host ${host} is not loopback: serving beyond this machine needs a token (--token or RLENV_SERVE_TOKEN)`);
  const environments = await ServedEnvironmentSet.load(o.dirs, o);
  const shutdown = new AbortController();
  const metrics = new PromServeMetrics();
  const sessions = new Sessions({
    environments,
    metrics,
    maxSessions: o.maxSessions,
    idleTimeoutMs: o.idleTimeoutMs,
    signal: shutdown.signal,
  });
  const ctx: ServeContext = { environments, sessions, metrics, runsDir: o.runsDir, signal: shutdown.signal };
  const mounts = o.protocols.map((p) => p(ctx));
  const routes = routeTable(mounts);
  const wsRoutes = new Map<string, WsRoute>(mounts.flatMap((m) => m.ws.map((w) => [w.path, w] as const)));
  const wss = new WebSocketServer({ noServer: true, maxPayload: 32 * 1024 * 1024 });

  const server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!authorized(req, o.token)) return sendJson(res, 401, { detail: "unauthorized: send Authorization: Bearer <token>" });
    if (req.method === "GET" && url.pathname === "/metrics") return sendText(res, 200, await metrics.text(), "text/plain; version=0.0.4");
    const route = findRoute(routes, req.method ?? "GET", url.pathname);
    if (!route) return sendJson(res, 404, { detail: `no route ${req.method} ${url.pathname}` });
    try {
      await route.handle(req, res, url);
    } catch (e) {
      // A handler's own errors are its protocol's replies; this is the last resort for a throw it did not answer.
      metrics.error("http", e instanceof ServeError ? e.kind : "internal");
      if (!res.headersSent) sendJson(res, e instanceof ServeError ? 400 : 500, { detail: (e as Error).message });
      else res.destroy();
    }
  }
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = wsRoutes.get(url.pathname);
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!authorized(req, o.token)) return refuse("401 Unauthorized");
    if (!route) return refuse("404 Not Found");
    wss.handleUpgrade(req, socket, head, (ws) => route.accept(ws, req));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      shutdown.abort(new Error("the server is shutting down"));
      sessions.stop();
      await sessions.closeAll();
      for (const c of wss.clients) c.close(1001, "server shutting down");
      await environments.close("completed");
      await closeServer(server);
    })();
    return closing;
  };
  return { url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, port, ctx, close };
}

/** Exact routes, then prefix routes (`/x/*`) longest first. */
function routeTable(mounts: readonly ProtocolMount[]): HttpRoute[] {
  const all = mounts.flatMap((m) => m.http);
  const exact = all.filter((r) => !r.path.endsWith("/*"));
  const prefix = all.filter((r) => r.path.endsWith("/*")).sort((a, b) => b.path.length - a.path.length);
  return [...exact, ...prefix];
}

function findRoute(routes: readonly HttpRoute[], method: string, pathname: string): HttpRoute | undefined {
  return routes.find(
    (r) => r.method === method && (r.path.endsWith("/*") ? pathname.startsWith(r.path.slice(0, -1)) : r.path === pathname),
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
