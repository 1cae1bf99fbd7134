import assert from "node:assert/strict";
import { test } from "node:test";
import { type Block, type Inline, parseMarkdown } from "../../../src/core/view/model/markdown";
import spec from "./commonmark-emphasis.json";

/**
 * Every example of the CommonMark spec's emphasis section, rendered from our tree to the
 * spec's HTML. Two deliberate differences are mapped, not skipped: link targets must be
 * http(s) (the spec's `/url` becomes an absolute URL on both sides), and raw HTML is
 * shown as text (the spec's tag is escaped in the expected HTML).
 */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const inline = (n: Inline[]): string =>
  n
    .map((x) => {
      switch (x.t) {
        case "text":
          return esc(x.text);
        case "code":
          return `<code>${esc(x.text)}</code>`;
        case "strong":
          return `<strong>${inline(x.children)}</strong>`;
        case "em":
          return `<em>${inline(x.children)}</em>`;
        default:
          return `<a href="${esc(x.href)}">${inline(x.children)}</a>`;
      }
    })
    .join("");
const html = (blocks: Block[]): string =>
  blocks.map((b) => (b.t === "paragraph" ? `<p>${inline(b.children)}</p>\n` : JSON.stringify(b))).join("");
const RAW_TAG = /<(?:[A-Za-z][^<>]*|\/[A-Za-z][^<>]*)>/g;

test("markdown: the CommonMark spec's emphasis examples", () => {
  assert.equal(spec.examples.length, 132);
  const failed: string[] = [];
  for (const ex of spec.examples) {
    const absolute = (s: string) => s.replace(/\/url/g, "https://x.invalid/url");
    const md = absolute(ex.markdown);
    let want = absolute(ex.html);
    // Raw HTML written in the source is text for us: escape the same tag in the expected HTML.
    for (const tag of md.match(RAW_TAG) ?? []) if (!/^<https?:/.test(tag)) want = want.replace(tag, esc(tag));
    const got = html(parseMarkdown(md.replace(/\n$/, "")));
    if (got !== want)
      failed.push(`example ${ex.number}: ${JSON.stringify(ex.markdown)}\n  want ${JSON.stringify(want)}\n  got  ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failed, []);
});

test("markdown: Python names keep their underscores", () => {
  const src = "self.__dict__, obj.__init__ and foo.__name__ == '__main__' and _private_ but __bold__ and _em_";
  const p = parseMarkdown(src)[0];
  assert.ok(p?.t === "paragraph");
  assert.equal(
    html([p]),
    "<p>self.__dict__, obj.__init__ and foo.__name__ == '__main__' and <em>private</em> but <strong>bold</strong> and <em>em</em></p>\n",
  );
  // Inside a word the spec itself never opens emphasis with `_`.
  assert.equal(html(parseMarkdown("a.__b__ c_d_e snake_case_name x__y__z")), "<p>a.__b__ c_d_e snake_case_name x__y__z</p>\n");
});

test("markdown: 6,000 nested quotes, list items, brackets or delimiters do not exhaust the stack", () => {
  for (const src of [
    `${">".repeat(6000)} deep`,
    Array.from({ length: 6000 }, (_, i) => `${" ".repeat(i * 2)}- item ${i}`).join("\n"),
    `${"- ".repeat(6000)}x`,
    `${"[".repeat(6000)}x${"](https://a.invalid)".repeat(6000)}`,
    `${"*".repeat(6000)}x${"*".repeat(6000)}`,
    `${"_a ".repeat(6000)}${" b_".repeat(6000)}`,
  ]) {
    const blocks = parseMarkdown(src);
    assert.ok(blocks.length > 0);
    assert.ok(
      JSON.stringify(blocks).includes("x") ||
        JSON.stringify(blocks).includes("item") ||
        JSON.stringify(blocks).includes("deep") ||
        JSON.stringify(blocks).includes("a"),
    );
  }
});
