import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { initDataBlock, type PageOptions, renderPageWithCsp } from "../page";
import { type AppName, isAppName } from "../protocol/names";
import { ASSET_TYPES, findAssetsDir, staticImports } from "./assets";
import { inlineApp } from "./page-bundle";
import { ViewRequestError } from "./request-error";
import type { TokenPieces } from "./token-text";
import type { ViewApi } from "./view-api";
import type { ViewTarget } from "./view-target";

export { targetFor, type ViewTarget } from "./view-target";

/** The app a page asks for (`?app=`), else the one the server was started for. */
function appOf(asked: string | null, started: AppName): AppName {
  return isAppName(asked) ? asked : started;
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
  tokenPieces?: (rollout: string) => TokenPieces | null | Promise<TokenPieces | null>;
}

/** Whether a request carries the server's token (compared in constant time). */
function tokenCheck(token: string): (given: string | null | undefined) => boolean {
  const tokenBuf = Buffer.from(token);
  return (given) => {
    const b = Buffer.from(given ?? "");
    return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
  };
}

/** When the rest of a large trajectory is read: `restAfter` resolves at `readRest()`, or by itself a few seconds after start. */
function restOfFile(firstScreenAhead: boolean) {
  // The rest of a large file is read once the first page has what it needs: on 2 cores the
  // background read took CPU from the first screen's reply and from the browser drawing it.
  // It goes on at the page's first request (it has painted, or wants more), a moment after
  // the page was sent, or after a few seconds if no page comes.
  let readRest = () => {};
  const restAfter = firstScreenAhead ? new Promise<void>((resolve) => (readRest = resolve)) : undefined;
  const restTimer = setTimeout(() => readRest(), REST_AFTER_START_MS);
  restTimer.unref();
  return { readRest: () => readRest(), restAfter, restTimer };
}

/**
 * The API half, loaded on `load()`. This module listens and serves the page and its bundles
 * with no schema loaded. The API half (schemas, the view service, reading the file's first
 * chunk) is a module of its own, loaded just after the server listens: once the caller has
 * printed the URL, so the browser is on its way while it loads (a page that comes meanwhile
 * waits for it, as its init reply must).
 */
function lazyApi(t: ViewTarget, opts: ViewServerOptions, firstScreen: boolean, restAfter: Promise<void> | undefined) {
  let loadApi: () => void = () => {};
  const api = new Promise<ViewApi>((resolve, reject) => {
    loadApi = () => {
      loadApi = () => {};
      import("./view-api")
        .then((m) =>
          resolve(
            m.createViewApi(t, (asked) => appOf(asked, t.app), {
              firstScreen,
              ...(opts.tokenPieces ? { tokenPieces: opts.tokenPieces } : {}),
              ...(restAfter ? { restAfter } : {}),
            }),
          ),
        )
        .catch(reject);
    };
  });
  api.catch(() => {});
  return { api, load: () => loadApi() };
}

/** What the request handler serves from. */
interface Serving {
  t: ViewTarget;
  assets: string;
  firstScreenAhead: boolean;
  authorised: (given: string | null | undefined) => boolean;
  api: Promise<ViewApi>;
  readRest: () => void;
}

/** A bundle or stylesheet of the assets folder, by its plain name only. */
function sendAsset(res: ServerResponse, assets: string, name: string): void {
  const type = ASSET_TYPES[path.extname(name)];
  if (!type || !/^[\w.-]+$/.test(name) || !existsSync(path.join(assets, name))) send(res, 404, "text/plain", "not found");
  else send(res, 200, type, readFileSync(path.join(assets, name)));
}

/**
 * How the page brings its app when the first screen is sent ahead: inside the page where the
 * build wrote a page bundle (the browser compiles it while this server computes the first
 * screen), else the split bundle with its chunks as module preloads.
 */
function aheadOfTheBundle(assets: string, app: string): Partial<PageOptions> {
  const inline = inlineApp(assets, app);
  if (inline) return { inline, asyncScript: true };
  return { modulePreloads: staticImports(assets, `${app}.js`).map((n) => `/assets/${n}`), asyncScript: true };
}

/** The app's page, with its CSP; with the first screen ahead, the init reply follows inside it. */
async function sendPage(res: ServerResponse, url: URL, s: Serving): Promise<void> {
  if (!s.authorised(url.searchParams.get("token"))) return send(res, 403, "text/plain", "missing or wrong token");
  const app = appOf(url.searchParams.get("app"), s.t.app);
  const page = renderPageWithCsp({
    app,
    title: `RL Env Studio: ${app}`,
    cspSource: "'self'",
    scriptUri: `/assets/${app}.js`,
    styleUri: `/assets/${app}.css`,
    backend: "http",
    ...(s.firstScreenAhead ? aheadOfTheBundle(s.assets, app) : {}),
  });
  const headers = { "content-security-policy": `${page.csp}; frame-ancestors 'none'` };
  if (!s.firstScreenAhead) return send(res, 200, "text/html; charset=utf-8", page.html, headers);
  // The page goes out at once, so the browser fetches the bundles while the init reply is
  // computed; the reply follows before </body> (the app runs once the page is whole), so
  // the app needs no request before its first paint. If it fails, the app asks /api/init, which says why.
  const end = page.html.lastIndexOf("</body>");
  writeHead(res, 200, "text/html; charset=utf-8", headers);
  res.write(page.html.slice(0, end));
  const init = await s.api.then((a) => a.initReply(url.searchParams)).catch(() => null);
  res.end(`${init ? initDataBlock(JSON.stringify(init)) : ""}${page.html.slice(end)}`);
  setTimeout(() => s.readRest(), REST_AFTER_PAGE_MS).unref();
}

/** One HTTP request: an asset, the page, or an API call (bearer token). */
async function handle(req: IncomingMessage, res: ServerResponse, s: Serving): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (url.pathname.startsWith("/assets/")) return sendAsset(res, s.assets, url.pathname.slice("/assets/".length));
  if (url.pathname === "/favicon.ico") return send(res, 204, "text/plain", "");
  if (url.pathname === "/" && req.method === "GET") return sendPage(res, url, s);
  if (!url.pathname.startsWith("/api/")) return send(res, 404, "text/plain", "not found");
  s.readRest();
  if (!s.authorised(bearer)) return send(res, 403, "text/plain", "missing or wrong token");
  if (url.pathname === "/api/init" && req.method === "GET") {
    return send(res, 200, "application/json", JSON.stringify(await (await s.api).initReply(url.searchParams)));
  }
  if (url.pathname === "/api/request" && req.method === "POST") {
    const body = await readBody(req);
    return send(res, 200, "application/json", JSON.stringify(await (await s.api).request(body)));
  }
  return send(res, 404, "text/plain", "not found");
}

export async function startViewServer(t: ViewTarget, opts: ViewServerOptions = {}): Promise<RunningViewServer> {
  const token = randomBytes(24).toString("base64url");
  const assets = opts.assetsDir ?? findAssetsDir();
  const firstScreenAhead = opts.firstScreen ?? true;
  const { readRest, restAfter, restTimer } = restOfFile(firstScreenAhead);
  const { api, load } = lazyApi(t, opts, firstScreenAhead, restAfter);
  const serving: Serving = { t, assets, firstScreenAhead, authorised: tokenCheck(token), api, readRest };
  const server = createServer((req, res) => {
    handle(req, res, serving).catch((err: unknown) => {
      const msg = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) send(res, err instanceof ViewRequestError ? 400 : 500, "text/plain; charset=utf-8", msg);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  // After the caller's continuation, which prints the URL, has run.
  setImmediate(() => load());
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    token,
    server,
    close: () => {
      clearTimeout(restTimer);
      readRest();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A page left open holds a live connection (its polls, a stream of a growing file):
      // server.close alone waited for the browser to let go, so Ctrl-C or SIGTERM left the
      // viewer up (the bench killed it after 5 s). Stopping the viewer ends its pages' requests.
      server.closeAllConnections();
      return closed;
    },
  };
}
