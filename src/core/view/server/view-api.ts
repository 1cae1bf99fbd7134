import { FromApp, type FromHost, InitContext, type Preloaded } from "../protocol/envelope";
import type { AppName } from "../protocol/names";
import { compareScreen, firstScreen } from "./first-screen";
import { ViewRequestError } from "./request-error";
import type { TokenPieces } from "./token-text";
import type { ViewTarget } from "./view-target";
import { ViewService } from "./view-service";

/**
 * The `rlenv view` server's API half: the view service, the init reply and the requests,
 * with the schemas they parse. The HTTP front (http-server.ts) loads it once the page and
 * its bundles have gone out, so building the schemas and reading the file's first chunk
 * happen while the browser reads the bundles, not before the server listens.
 */
export interface ViewApi {
  /** The init message for a page's query (app, file, compare, row, live), with the first screen of a trajectory. */
  initReply(q: URLSearchParams): Promise<FromHost>;
  /** One request message (the body of POST /api/request) answered. */
  request(body: string): Promise<FromHost>;
}

export interface ViewApiOptions {
  /** Send the first screen's replies with `init` (see ViewServerOptions.firstScreen). */
  firstScreen: boolean;
  tokenPieces?: (rollout: string) => TokenPieces | null | Promise<TokenPieces | null>;
  /** A large file's index reads past its first chunk once this resolves. */
  restAfter?: Promise<void>;
}

export function createViewApi(t: ViewTarget, appOf: (asked: string | null) => AppName, opts: ViewApiOptions): ViewApi {
  const service = new ViewService(t.root, {
    ...(opts.tokenPieces ? { tokenPieces: opts.tokenPieces } : {}),
    ...(opts.restAfter ? { restAfter: opts.restAfter } : {}),
  });
  // The file is read from its start while the browser loads the bundles (its first chunk is what the first screen needs).
  // (A bad target is reported when the page asks for it, not here.)
  if (t.app === "trajectory" && opts.firstScreen) service.index(service.resolve(t.target)).catch(() => {});

  return {
    async initReply(q) {
      const app = appOf(q.get("app"));
      const file = q.get("file");
      const [compare, ...more] = q.getAll("compare");
      const context = InitContext.parse({
        app,
        target: app === t.app ? (file ?? t.target) : (file ?? "."),
        ...(compare ? { compare } : {}),
        ...(more.length ? { more: more.slice(0, 2) } : {}),
        ...(/^\d+$/.test(q.get("row") ?? "") ? { row: Number(q.get("row")) } : {}),
        live: q.get("live") === "1",
        backend: "http",
      });
      const preload = app === "trajectory" && opts.firstScreen ? await firstScreens(service, context) : [];
      return { kind: "init", context, snapshot: null, ...(preload.length ? { preload } : {}) };
    },

    async request(body) {
      const parsed = FromApp.safeParse(JSON.parse(body));
      if (!parsed.success || parsed.data.kind !== "request") throw new ViewRequestError("expected a request message");
      const { id, method, params } = parsed.data;
      try {
        return { kind: "response", id, ok: true, result: await service.handle(method, params) };
      } catch (err) {
        return { kind: "response", id, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/**
 * What a trajectory page's first screen asks for: its first step, and with a compare in the
 * URL (the tab it opens on) the compare's first lines. A part that fails is left out; the
 * page then asks for it, and sees why.
 */
async function firstScreens(service: ViewService, context: InitContext): Promise<Preloaded[]> {
  const others = [...(context.compare ? [context.compare] : []), ...(context.more ?? [])];
  const parts = await Promise.all([
    firstScreen(service, context.target, context.row).catch(() => []),
    others.length ? compareScreen(service, [context.target, ...others]).catch(() => []) : [],
  ]);
  return parts.flat();
}
