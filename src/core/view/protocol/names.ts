/**
 * The protocol's plain constants, apart from its schemas: the HTTP server's front (which
 * listens, sends the page and its bundles before any schema is built) and page.ts need
 * them, and must not wait for a schema library to load.
 */

/** The viewer apps. */
export const APP_NAMES = ["trajectory", "dashboard", "audit"] as const;
export type AppName = (typeof APP_NAMES)[number];

export function isAppName(s: unknown): s is AppName {
  return typeof s === "string" && (APP_NAMES as readonly string[]).includes(s);
}

/** The id of the element in which the HTTP server sends `init` with the page (see page.ts, initDataBlock). */
export const INIT_ELEMENT_ID = "rlenv-init";
