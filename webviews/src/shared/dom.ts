/**
 * DOM building without HTML strings: every piece of text becomes a text node, so
 * nothing a model wrote is ever parsed as markup. Attributes are set one by one and
 * event handler attributes are refused.
 */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") {
      el.addEventListener(k.replace(/^on/, ""), v);
      continue;
    }
    if (/^on/i.test(k)) throw new Error(`refusing inline handler attribute ${k}`);
    if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** SVG elements for the charts (same rule: text only through text nodes). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: Array<Node | string>
): SVGElementTagNameMap[K] {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * A whole number with thousands grouped (10,003), in English like the rest of the UI.
 * Not toLocaleString: its first call in a page sets up the browser's number formatting
 * (20–100 ms measured), which sat on the way to the first painted step.
 */
export function fmtCount(n: number): string {
  const s = String(Math.trunc(n));
  return Number.isFinite(n) ? s.replace(/\B(?=(\d{3})+$)/g, ",") : String(n);
}

export function fmtNum(n: number | null | undefined, digits = 2): string {
  return n === null || n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);
}

/** A pretty-printed JSON value as text. */
export function jsonText(v: unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2) ?? String(v);
}

/** Whether VS Code (or the browser) is in a dark theme. */
export function isDark(): boolean {
  const cls = document.body.classList;
  if (cls.contains("vscode-light") || cls.contains("vscode-high-contrast-light")) return false;
  if (cls.contains("vscode-dark") || cls.contains("vscode-high-contrast")) return true;
  // Outside VS Code (rlenv view) the page's own fallback colours are dark.
  return true;
}

/**
 * Links a stylesheet that sits beside the app's bundles (a lazily loaded part's CSS), once.
 * `rlenv view` sends the app inside its page, where this module's URL is the page's: there
 * the page names the bundles' folder (`data-assets`).
 */
export function loadStyle(file: string): void {
  const href = new URL(file, new URL(document.body.dataset.assets ?? "", import.meta.url)).toString();
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((l) => (l as HTMLLinkElement).href === href)) return;
  document.head.appendChild(h("link", { rel: "stylesheet", href }));
}
