import { randomBytes } from "node:crypto";
import { type AppName, INIT_ELEMENT_ID } from "./protocol/names";

export interface PageOptions {
  /** A viewer app, or "play" (the editor-only Play Task panel, src/extension/human). */
  app: AppName | "play";
  title: string;
  /** Origin(s) the page may load scripts, styles, fonts and images from (a webview's cspSource, or 'self'). */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  backend: "webview" | "http";
  /** Extra connect-src origins (the HTTP backend's API). */
  connectSrc?: string;
  /** The modules the bundle imports statically: fetched alongside it rather than once it has arrived and been read. */
  modulePreloads?: string[];
  /**
   * Run the bundle as soon as it and its modules have loaded (`async`), not once the whole page
   * has been parsed: the HTTP server sends the init data block after the bundle's tag, a moment
   * later, and the app's modules are evaluated meanwhile instead of after it (the app waits for
   * the document's end before it reads the block, see webviews/src/shared/api.ts).
   */
  asyncScript?: boolean;
  /**
   * The app itself, inside the page (`rlenv view`): its bundle as the nonced module script and its
   * stylesheet as a style element, in place of scriptUri and styleUri (which still name where the
   * bundles sit, for the parts loaded later). See src/core/view/server/page-bundle.ts.
   */
  inline?: { script: string; style: string };
}

export const nonce = (): string => randomBytes(18).toString("base64");

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The one HTML page of every app, for both backends: no inline script, a nonce on the
 * bundle, and a CSP that allows nothing else to run. Styles may be inline because
 * Monaco injects its own <style> elements; scripts never.
 */
export function renderPage(o: PageOptions): string {
  return renderPageWithCsp(o).html;
}

/**
 * The page and its policy, for a server that also sends the policy as a header: there
 * `frame-ancestors 'none'` applies too (browsers ignore it in a meta element), so no
 * other page can frame the viewer.
 */
export function renderPageWithCsp(o: PageOptions): { html: string; csp: string } {
  const n = nonce();
  const csp = [
    "default-src 'none'",
    // Our own bundle folder is allowed too: Monaco's worker imports its script from there.
    `script-src 'nonce-${n}' ${o.cspSource}`,
    `style-src ${o.cspSource} 'unsafe-inline'`,
    `img-src ${o.cspSource} data: blob:`,
    `font-src ${o.cspSource} data:`,
    `worker-src blob:`,
    `connect-src ${o.connectSrc ?? o.cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttr(o.title)}</title>
${o.inline ? `<style>${o.inline.style}</style>` : `<link rel="stylesheet" href="${escapeAttr(o.styleUri)}">`}
${(o.modulePreloads ?? []).map((u) => `<link rel="modulepreload" href="${escapeAttr(u)}">\n`).join("")}</head>
<body data-app="${o.app}" data-backend="${o.backend}" data-assets="${escapeAttr(o.scriptUri.replace(/[^/]*$/, ""))}" data-worker="${escapeAttr(o.scriptUri.replace(/[^/]*$/, "editor.worker.js"))}">
<div id="app"><p class="loading">Loading…</p></div>
${o.inline ? `<script type="module"${o.asyncScript ? " async" : ""} nonce="${n}">${o.inline.script}</script>` : `<script type="module"${o.asyncScript ? " async" : ""} nonce="${n}" src="${escapeAttr(o.scriptUri)}"></script>`}
</body>
</html>
`;
  return { html, csp };
}

/**
 * The init reply inside the page (HTTP backend): a JSON data block, which no browser runs
 * and the CSP therefore allows, read by the app instead of asking for it. `<` is escaped, so
 * no text in the reply can close the element.
 */
export function initDataBlock(json: string): string {
  return `<script type="application/json" id="${INIT_ELEMENT_ID}">${json.replace(/</g, "\\u003c")}</script>\n`;
}
