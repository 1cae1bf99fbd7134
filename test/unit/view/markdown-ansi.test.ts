import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAnsi } from "../../../src/core/view/model/ansi";
import { type Block, type Inline, isSafeUrl, parseMarkdown } from "../../../src/core/view/model/markdown";

function inlines(b: Block | undefined): Inline[] {
  assert.ok(b && (b.t === "paragraph" || b.t === "heading"), `expected a paragraph, got ${JSON.stringify(b)}`);
  return b.children;
}

test("markdown: blocks models write", () => {
  const blocks = parseMarkdown(
    "# Plan\n\nFirst **bold** and *em* and `code`.\n\n- one\n- two\n\n1. a\n2. b\n\n```python\nx = 1\n```\n\n> quoted\n\n---",
  );
  assert.deepEqual(
    blocks.map((b) => b.t),
    ["heading", "paragraph", "list", "list", "code", "quote", "rule"],
  );
  const p = inlines(blocks[1]);
  assert.deepEqual(
    p.map((i) => i.t),
    ["text", "strong", "text", "em", "text", "code", "text"],
  );
  const code = blocks[4];
  assert.ok(code?.t === "code");
  assert.equal(code.lang, "python");
  assert.equal(code.text, "x = 1");
  const ol = blocks[3];
  assert.ok(ol?.t === "list" && ol.ordered && ol.items.length === 2);
});

test("markdown: HTML stays text and unsafe links are not links", () => {
  const src = `<img src=x onerror=alert(1)> </script> [x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](java\tscript:alert(1)) [d](data:text/html,<script>) [ok](https://example.invalid/a)`;
  const p = inlines(parseMarkdown(src)[0]);
  const links = p.filter((i) => i.t === "link");
  assert.equal(links.length, 1);
  assert.ok(links[0]?.t === "link" && links[0].href === "https://example.invalid/a");
  const text = p.map((i) => (i.t === "text" ? i.text : "")).join("");
  assert.match(text, /<img src=x onerror=alert\(1\)>/);
  assert.match(text, /\[x\]\(javascript:alert\(1\)\)/);
  for (const bad of ["javascript:alert(1)", " javascript:x", "java\nscript:x", "data:text/html,x", "vbscript:x", "//evil.invalid"])
    assert.equal(isSafeUrl(bad), false, bad);
  for (const good of ["https://a.invalid/", "http://a.invalid", "mailto:a@b.invalid"]) assert.equal(isSafeUrl(good), true, good);
});

test("ansi: colours, bold, reset and 256/RGB colours; other escapes dropped", () => {
  const segs = parseAnsi("plain \x1b[1;31mred bold\x1b[0m \x1b[38;5;196mx\x1b[48;2;1;2;3my\x1b[39;49m z\x1b[2K\x1b]0;title\x07!");
  assert.deepEqual(
    segs.map((s) => s.text),
    ["plain ", "red bold", " ", "x", "y", " z!"],
  );
  assert.equal(segs[1]?.style.fg, "var(--ansi-red)");
  assert.equal(segs[1]?.style.bold, true);
  assert.equal(segs[2]?.style.fg, null);
  assert.equal(segs[3]?.style.fg, "rgb(255,0,0)");
  assert.equal(segs[4]?.style.bg, "rgb(1,2,3)");
  assert.equal(segs[5]?.style.fg, null);
  assert.equal(segs.map((s) => s.text).join(""), "plain red bold xy z!");
});

test("markdown: underscores inside words are not emphasis", () => {
  const p = inlines(parseMarkdown("call window.__xss and snake_case_name but _this_ is em")[0]);
  assert.deepEqual(
    p.map((i) => i.t),
    ["text", "em", "text"],
  );
  assert.equal(p[0]?.t === "text" && p[0].text, "call window.__xss and snake_case_name but ");
});
