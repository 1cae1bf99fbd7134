import { type Block, type Inline, parseMarkdown } from "../../../src/core/view/model/markdown";
import { h } from "./dom";

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
        return h("strong", {}, ...inline(n.children));
      case "em":
        return h("em", {}, ...inline(n.children));
      case "link":
        // The parser keeps only http(s)/mailto targets; rel stops the opened page reaching back.
        return h("a", { href: n.href, rel: "noopener noreferrer nofollow", target: "_blank" }, ...inline(n.children));
  }
}

function block(b: Block): Node {
  switch (b.t) {
    case "heading":
      return h(`h${Math.min(6, b.level + 2)}` as "h3", {}, ...inline(b.children));
    case "paragraph":
      return h("p", {}, ...inline(b.children));
    case "code":
      return h("pre", { class: "code", "data-lang": b.lang }, h("code", {}, b.text));
    case "list": {
      const items = b.items.map((it) => h("li", {}, ...it.map(block)));
      return b.ordered ? h("ol", {}, ...items) : h("ul", {}, ...items);
    }
    case "quote":
      return h("blockquote", {}, ...b.children.map(block));
    case "rule":
      return h("hr");
  }
}

/** Markdown from a model, as DOM nodes built from text (never innerHTML). */
export function renderMarkdown(src: string): HTMLElement {
  return h("div", { class: "md" }, ...parseMarkdown(src).map(block));
}
