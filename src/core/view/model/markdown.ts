/**
 * A small Markdown parser for model messages that yields a tree, never HTML: the
 * webview builds DOM nodes from it with `textContent`, so `<img onerror=…>` in a message
 * stays text. Links keep only http(s) and mailto targets; anything else (`javascript:`,
 * `data:`) is shown as plain text. Covers what models write: headings, paragraphs,
 * lists, block quotes, fenced code, rules, inline code, bold, italic, links.
 */
import { type Inline, parseInline } from "./markdown-inline";

export { type Inline, isSafeUrl, parseInline } from "./markdown-inline";

export type Block =
  | { t: "heading"; level: number; children: Inline[] }
  | { t: "paragraph"; children: Inline[] }
  | { t: "code"; lang: string; text: string }
  | { t: "list"; ordered: boolean; items: Block[][] }
  | { t: "quote"; children: Block[] }
  | { t: "rule" };

const FENCE = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^([ \t]*)([-*+]|\d+[.)])[ \t]+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

/** Quotes and lists nested deeper than this show their remaining lines as text: no input can exhaust the stack. */
const MAX_NESTING = 24;

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  return parseBlocks(lines, 0);
}

function parseBlocks(lines: string[], depth: number): Block[] {
  if (depth >= MAX_NESTING) return [{ t: "code", lang: "", text: lines.join("\n") }];
  const out: Block[] = [];
  let i = 0;
  let para: string[] = [];
  const flushPara = () => {
    if (para.length) out.push({ t: "paragraph", children: parseInline(para.join("\n")) });
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      i++;
      out.push({ t: "code", lang: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    if (line.trim() === "") {
      flushPara();
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      out.push({ t: "heading", level: heading[1]!.length, children: parseInline(heading[2]!) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      flushPara();
      out.push({ t: "rule" });
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      flushPara();
      const body: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ""));
      out.push({ t: "quote", children: parseBlocks(body, depth + 1) });
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      flushPara();
      const ordered = /\d/.test(bullet[2]!);
      const indent = bullet[1]!.length;
      const items: string[][] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const b = BULLET.exec(l);
        if (b && b[1]!.length === indent && /\d/.test(b[2]!) === ordered) {
          items.push([b[3]!]);
          i++;
        } else if (l.trim() !== "" && /^\s/.test(l) && items.length) {
          items[items.length - 1]!.push(l.slice(Math.min(indent + 2, l.length - l.trimStart().length)));
          i++;
        } else break;
      }
      out.push({ t: "list", ordered, items: items.map((it) => parseBlocks(it, depth + 1)) });
      continue;
    }
    para.push(line);
    i++;
  }
  flushPara();
  return out;
}
