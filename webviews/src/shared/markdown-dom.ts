import { type Block, type Inline, parseMarkdown } from "../../../src/core/view/model/markdown";
import { h } from "./dom";

/** Children are appended one by one: a message with 100,000 inline nodes must not become one call's arguments. */
function fill<E extends HTMLElement>(el: E, nodes: Node[]): E {
  for (const n of nodes) el.appendChild(n);
  return el;
}

function inline(nodes: Inline[]): Node[] {
  return nodes.map(inlineNode);
}

function inlineNode(n: Inline): Node {
  switch (n.t) {
    case "text":
      return document.createTextNode(n.text);
    case "code":
      return h("code", {}, n.text);
    case "strong":
      return fill(h("strong"), inline(n.children));
    case "em":
      return fill(h("em"), inline(n.children));
    case "link":
      // The parser keeps only http(s)/mailto targets; rel stops the opened page reaching back.
      return fill(h("a", { href: n.href, rel: "noopener noreferrer nofollow", target: "_blank" }), inline(n.children));
  }
}

function block(b: Block): Node {
  switch (b.t) {
    case "heading":
      return fill(h(`h${Math.min(6, b.level + 2)}` as "h3"), inline(b.children));
    case "paragraph":
      return fill(h("p"), inline(b.children));
    case "code":
      return h("pre", { class: "code", "data-lang": b.lang }, h("code", {}, b.text));
    case "list": {
      const items = b.items.map((it) => fill(h("li"), it.map(block)));
      return fill(b.ordered ? h("ol") : h("ul"), items);
    }
    case "quote":
      return fill(h("blockquote"), b.children.map(block));
    case "rule":
      return h("hr");
  }
}

/** Markdown from a model, as DOM nodes built from text (never innerHTML). */
export function renderMarkdown(src: string): HTMLElement {
  return fill(h("div", { class: "md" }), parseMarkdown(src).map(block));
}
