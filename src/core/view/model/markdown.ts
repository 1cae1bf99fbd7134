/**
 * A small Markdown parser for model messages that yields a tree, never HTML: the
 * webview builds DOM nodes from it with `textContent`, so `<img onerror=…>` in a message
 * stays text. Links keep only http(s) and mailto targets; anything else (`javascript:`,
 * `data:`) is shown as plain text. Covers what models write: headings, paragraphs,
 * lists, block quotes, fenced code, rules, inline code, bold, italic, links.
 */
export type Inline =
  | { t: "text"; text: string }
  | { t: "code"; text: string }
  | { t: "strong"; children: Inline[] }
  | { t: "em"; children: Inline[] }
  | { t: "link"; href: string; children: Inline[] };

export type Block =
  | { t: "heading"; level: number; children: Inline[] }
  | { t: "paragraph"; children: Inline[] }
  | { t: "code"; lang: string; text: string }
  | { t: "list"; ordered: boolean; items: Block[][] }
  | { t: "quote"; children: Block[] }
  | { t: "rule" };

const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Whether a link target may be followed (else the link renders as text). */
export function isSafeUrl(href: string): boolean {
  // Browsers ignore control characters and whitespace inside schemes ("java\tscript:").
  const cleaned = href.replace(/[\u0000-\u0020\u007f]/g, "");
  return SAFE_URL.test(cleaned) && cleaned === href.trim();
}

export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = "";
  const flush = () => {
    if (text) out.push({ t: "text", text });
    text = "";
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === "\\" && i + 1 < src.length && /[\\`*_[\]()#>-]/.test(src[i + 1]!)) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      const end = src.indexOf("`", i + 1);
      if (end > i) {
        flush();
        out.push({ t: "code", text: src.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    // `_` inside a word (snake_case, __dunder__) is never emphasis.
    const intraword = ch === "_" && i > 0 && /[\p{L}\p{N}_]/u.test(src[i - 1]!);
    if (intraword) {
      text += ch;
      i++;
      continue;
    }
    if ((ch === "*" || ch === "_") && src[i + 1] === ch) {
      const end = src.indexOf(ch + ch, i + 2);
      if (end > i + 2) {
        flush();
        out.push({ t: "strong", children: parseInline(src.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if ((ch === "*" || ch === "_") && src[i + 1] !== " " && src[i + 1] !== undefined) {
      const end = src.indexOf(ch, i + 1);
      if (end > i + 1 && src[end - 1] !== " ") {
        flush();
        out.push({ t: "em", children: parseInline(src.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === "[") {
      const close = src.indexOf("](", i + 1);
      const end = close > 0 ? src.indexOf(")", close + 2) : -1;
      if (close > 0 && end > 0) {
        const label = src.slice(i + 1, close);
        const href = src.slice(close + 2, end).trim();
        flush();
        if (isSafeUrl(href)) out.push({ t: "link", href, children: parseInline(label) });
        else out.push({ t: "text", text: src.slice(i, end + 1) });
        i = end + 1;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

const FENCE = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  return parseBlocks(lines);
}

function parseBlocks(lines: string[]): Block[] {
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
      out.push({ t: "quote", children: parseBlocks(body) });
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
      out.push({ t: "list", ordered, items: items.map((it) => parseBlocks(it)) });
      continue;
    }
    para.push(line);
    i++;
  }
  flushPara();
  return out;
}
