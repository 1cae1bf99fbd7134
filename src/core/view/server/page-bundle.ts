import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** An app to send inside its page: its whole bundle and stylesheet, made safe for a `<script>` and a `<style>`. */
export interface InlineApp {
  script: string;
  style: string;
}

/**
 * The HTML tokenizer does not read JavaScript: inside a script element, `</script` ends it and
 * `<!--` then `<script` can hide the real end from it. In a module those can only stand in a
 * string, a template, a regular expression or a comment, where `\x3C` is the same `<` (except
 * in a raw template, which our bundles do not read for text like this).
 */
export const scriptSafe = (js: string): string => js.replace(/<(?=!--|\/?script)/gi, "\\x3C");

/** In a style element only `</style` ends it; CSS reads `\/` as `/` in the strings and comments where it can stand. */
export const styleSafe = (css: string): string => css.replace(/<\/(?=style)/gi, "<\\/");

const cache = new Map<string, InlineApp | null>();

/**
 * The app's page bundle (esbuild.mjs writes dist/view-pages/<app>.js and .css beside
 * dist/webviews: one module with no static imports), or null where the build has none,
 * and the page then links the split bundle. Read once per process: the files change only
 * with a new build, which a running viewer does not see anyway.
 */
export function inlineApp(assetsDir: string, app: string): InlineApp | null {
  const dir = path.join(assetsDir, "..", "view-pages");
  const key = path.join(dir, app);
  const known = cache.get(key);
  if (known !== undefined) return known;
  const js = path.join(dir, `${app}.js`);
  const css = path.join(dir, `${app}.css`);
  const found = existsSync(js)
    ? { script: scriptSafe(readFileSync(js, "utf8")), style: existsSync(css) ? styleSafe(readFileSync(css, "utf8")) : "" }
    : null;
  cache.set(key, found);
  return found;
}
