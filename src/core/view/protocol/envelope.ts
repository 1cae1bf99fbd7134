import * as z from "zod/mini";
import "../../schema/zod-mini";
import { APP_NAMES } from "./names";

/**
 * The envelope every webview app speaks with its host, whichever backend carries it
 * (VS Code postMessage or the `rlenv view` HTTP server). Parsed on both sides.
 * The app opens with `ready`; the host answers `init`; requests are matched by id.
 */
export const AppName = z.enum(APP_NAMES);
export type AppName = z.infer<typeof AppName>;

export const InitContext = z.object({
  app: AppName,
  /** A file (trajectory), run folder (dashboard) or audit.json (audit), relative to the served root. */
  target: z.string(),
  /** A second file for the compare view. */
  compare: z.optional(z.string()),
  /** Up to two more files for the compare view (four side by side in all). */
  more: z.optional(z.array(z.string()).check(z.maxLength(2))),
  /** The step to show first (a search hit's). */
  row: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Follow the file while a rollout writes it (live panel). */
  live: z._default(z.boolean(), false),
  backend: z.enum(["webview", "http"]),
  /** The served folder (webview backend only): a restored panel re-opens from it. */
  root: z.optional(z.string()),
});
export type InitContext = z.infer<typeof InitContext>;

export const FromApp = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ready") }),
  z.object({ kind: z.literal("request"), id: z.number().check(z.int()), method: z.string(), params: z.unknown() }),
  /** Saved by the host so a reloaded panel starts where the user left it. */
  z.object({ kind: z.literal("snapshot"), state: z.record(z.string(), z.unknown()) }),
  /** Open another app (the dashboard opens the viewer on a rollout, or two to compare). */
  z.object({
    kind: z.literal("open"),
    app: AppName,
    target: z.string(),
    compare: z.optional(z.string()),
    more: z.optional(z.array(z.string()).check(z.maxLength(2))),
    row: z.optional(z.number().check(z.int(), z.nonnegative())),
  }),
]);
export type FromApp = z.infer<typeof FromApp>;

/**
 * Replies the host computed before the app asked (the first screen: meta, the first page
 * of rows, the first step), sent with `init` so the first paint waits for no round trip.
 * The app takes one when it makes the same request, and parses it as it parses any reply.
 */
export const Preloaded = z.object({ method: z.string(), params: z.record(z.string(), z.unknown()), result: z.unknown() });
export type Preloaded = z.infer<typeof Preloaded>;

export { INIT_ELEMENT_ID } from "./names";

/** The key a request is matched by: its method and params, keys in sorted order. */
export function requestKey(method: string, params: Record<string, unknown>): string {
  return JSON.stringify([
    method,
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  ]);
}

export const FromHost = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("init"),
    context: InitContext,
    snapshot: z.nullable(z.record(z.string(), z.unknown())),
    preload: z.optional(z.array(Preloaded)),
  }),
  z.object({
    kind: z.literal("response"),
    id: z.number().check(z.int()),
    ok: z.boolean(),
    result: z.optional(z.unknown()),
    error: z.optional(z.string()),
  }),
  /** The file grew (live panel): the app asks for fresh meta. */
  z.object({ kind: z.literal("changed") }),
]);
export type FromHost = z.infer<typeof FromHost>;
