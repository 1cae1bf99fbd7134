import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { AppName, FromApp, type FromHost, InitContext } from "../protocol/envelope";
import { initDataBlock, renderPageWithCsp } from "../page";
import { ASSET_TYPES, findAssetsDir, staticImports } from "./assets";
import { auditFileOf } from "./audit-report";
import { firstScreen } from "./first-screen";
import type { TokenPieces } from "./token-text";
import { ViewRequestError, ViewService } from "./view-service";

export interface ViewTarget {
  /** The folder requests are confined to. */
  root: string;
  app: AppName;
  /** File, run folder or audit.json relative to root. */
  target: string;
}

/**
 * What `rlenv view PATH` serves: a rollout file (its run folder is the root when there is one), a
 * run folder, or an audit report (an audit.json, or the `rlenv audit --out` folder holding one:
 * its folder is the root, so the trajectories under its runs/ open from the report).
 */
export function targetFor(p: string): ViewTarget {
  const abs = path.resolve(p);
  if (!existsSync(abs)) throw new Error(`${p}: no such file or folder`);
  const audit = auditFileOf(abs);
  if (audit) return { root: path.dirname(audit), app: "audit", target: path.basename(audit) };
  if (statSync(abs).isDirectory()) {
    if (!existsSync(path.join(abs, "rollouts")) && !existsSync(path.join(abs, "run.json")))
      throw new Error(`${p}: not a run folder (no run.json or rollouts/)`);
    return { root: abs, app: "dashboard", target: "." };
  }
  const dir = path.dirname(abs);
  const root = path.basename(dir) === "rollouts" ? path.dirname(dir) : dir;
  return { root, app: "trajectory", target: path.relative(root, abs).split(path.sep).join("/") };
}

/** The app a page asks for (`?app=`), else the one the server was started for. */
function appOf(asked: string | null, started: AppName): AppName {
  const a = AppName.safeParse(asked);
  return a.success ? a.data : started;
}

export interface RunningViewServer {
  url: string;
  token: string;
  server: Server;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
/** How long after the first page is sent, or after start with no page, the rest of a large trajectory waits to be read. */
const REST_AFTER_PAGE_MS = 1000;
const REST_AFTER_START_MS = 3000;

function writeHead(res: ServerResponse, status: number, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    ...extra,
  });
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  writeHead(res, status, type, extra);
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new ViewRequestError("request too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `rlenv view`: serves the apps and their API on 127.0.0.1 only. Every page and API
 * call needs the random token (in the page URL; the app sends it back as a bearer
 * token), so other local users and web pages cannot read the run.
 */
export interface ViewServerOptions {
  port?: number;
  assetsDir?: string;
  /**
   * Start reading a trajectory at start-up, send the first screen's replies with `init`, and
   * send `init` inside the page with the bundle's chunks as module preloads (default). Off,
   * the page asks for init, then for each reply, once it runs (the benchmark's before).
   */
  firstScreen?: boolean;
  /** The text of a rollout's tokens (see ViewService); the CLI passes it, so this module stays light. */
  tokenPieces?: (rollout: string) => TokenPieces | null;
}

export async function startViewServer(t: ViewTarget, opts: ViewServerOptions = {}): Promise<RunningViewServer> {
  const token = randomBytes(24).toString("base64url");
  const assets = opts.assetsDir ?? findAssetsDir();
  const firstScreenAhead = opts.firstScreen ?? true;
  // The rest of a large file is read once the first page has what it needs: on 2 cores the
  // background read took CPU from the first screen's reply and from the browser drawing it.
  // It goes on at the page's first request (it has painted, or wants more), a moment after
  // the page was sent, or after a few seconds if no page comes.
  let readRest = () => {};
  const restAfter = firstScreenAhead ? new Promise<void>((resolve) => (readRest = resolve)) : undefined;
  const restTimer = setTimeout(() => readRest(), REST_AFTER_START_MS);
  restTimer.unref();
  const service = new ViewService(t.root, {
    ...(opts.tokenPieces ? { tokenPieces: opts.tokenPieces } : {}),
    ...(restAfter ? { restAfter } : {}),
  });
  // The file is read from the start while the browser loads the page (its first chunk is what the first screen needs).
  // (A bad target is reported when the page asks for it, not here.)
  const readAhead = async () => service.index(service.resolve(t.target));
  if (t.app === "trajectory" && firstScreenAhead) readAhead().catch(() => {});
  const tokenBuf = Buffer.from(token);
  const authorised = (given: string | null | undefined) => {
    const b = Buffer.from(given ?? "");
    return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const msg = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) send(res, err instanceof ViewRequestError ? 400 : 500, "text/plain; charset=utf-8", msg);
    });
  });

  /** The init message for a page's query (app, file, compare, row, live), with the first screen of a trajectory. */
  async function initReply(q: URLSearchParams): Promise<FromHost> {
    const app = appOf(q.get("app"), t.app);
    const file = q.get("file");
    const [compare, ...more] = q.getAll("compare");
    const context = InitContext.parse({
      app,
      target: app === t.app ? (file ?? t.target) : (file ?? "."),
      ...(compare ? { compare } : {}),
      ...(more.length ? { more: more.slice(0, 2) } : {}),
      ...(/^\d+$/.test(q.get("row") ?? "") ? { row: Number(q.get("row")) } : {}),
      live: q.get("live") === "1",
      assetBase: "/assets/",
      backend: "http",
    });
    const preload = app === "trajectory" && firstScreenAhead ? await firstScreen(service, context.target, context.row).catch(() => []) : [];
    return { kind: "init", context, snapshot: null, ...(preload.length ? { preload } : {}) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (url.pathname.startsWith("/assets/")) {
      const name = url.pathname.slice("/assets/".length);
      const type = ASSET_TYPES[path.extname(name)];
      if (!type || !/^[\w.-]+$/.test(name) || !existsSync(path.join(assets, name))) return send(res, 404, "text/plain", "not found");
      return send(res, 200, type, readFileSync(path.join(assets, name)));
    }
    if (url.pathname === "/favicon.ico") return send(res, 204, "text/plain", "");
    if (url.pathname === "/" && req.method === "GET") {
      if (!authorised(url.searchParams.get("token"))) return send(res, 403, "text/plain", "missing or wrong token");
      const app = appOf(url.searchParams.get("app"), t.app);
      const page = renderPageWithCsp({
        app,
        title: `RL Env Studio: ${app}`,
        cspSource: "'self'",
        scriptUri: `/assets/${app}.js`,
        styleUri: `/assets/${app}.css`,
        backend: "http",
        ...(firstScreenAhead ? { modulePreloads: staticImports(assets, `${app}.js`).map((n) => `/assets/${n}`) } : {}),
      });
      const headers = { "content-security-policy": `${page.csp}; frame-ancestors 'none'` };
      if (!firstScreenAhead) return send(res, 200, "text/html; charset=utf-8", page.html, headers);
      // The page goes out at once, so the browser fetches the bundles while the init reply is
      // computed; the reply follows before </body> (the app runs once the page is whole), so
      // the app needs no request before its first paint. If it fails, the app asks /api/init, which says why.
      const end = page.html.lastIndexOf("</body>");
      writeHead(res, 200, "text/html; charset=utf-8", headers);
      res.write(page.html.slice(0, end));
      const init = await initReply(url.searchParams).catch(() => null);
      res.end(`${init ? initDataBlock(JSON.stringify(init)) : ""}${page.html.slice(end)}`);
      setTimeout(() => readRest(), REST_AFTER_PAGE_MS).unref();
      return;
    }
    if (!url.pathname.startsWith("/api/")) return send(res, 404, "text/plain", "not found");
    readRest();
    if (!authorised(bearer)) return send(res, 403, "text/plain", "missing or wrong token");
    if (url.pathname === "/api/init" && req.method === "GET") {
      return send(res, 200, "application/json", JSON.stringify(await initReply(url.searchParams)));
    }
    if (url.pathname === "/api/request" && req.method === "POST") {
      const parsed = FromApp.safeParse(JSON.parse(await readBody(req)));
      if (!parsed.success || parsed.data.kind !== "request") throw new ViewRequestError("expected a request message");
      const { id, method, params } = parsed.data;
      let reply: FromHost;
      try {
        reply = { kind: "response", id, ok: true, result: await service.handle(method, params) };
      } catch (err) {
        reply = { kind: "response", id, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      return send(res, 200, "application/json", JSON.stringify(reply));
    }
    return send(res, 404, "text/plain", "not found");
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    token,
    server,
    close: () => {
      clearTimeout(restTimer);
      readRest();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
