import { Parser } from "htmlparser2";
import type { DocumentPage } from "../types";

const SKIP = new Set(["script", "style", "noscript", "template", "head", "svg"]);
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "li",
  "ul",
  "ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "br",
  "hr",
  "table",
  "tr",
  "blockquote",
  "pre",
  "dt",
  "dd",
  "title",
]);

/**
 * Visible text of an HTML document: blocks on their own lines, table rows one line each
 * with tab-separated cells (SEC filings are HTML tables), scripts and styles dropped,
 * entities decoded. A `page-break-before/after` style starts a new page, as printed.
 */
export function parseHtml(html: string): DocumentPage[] {
  const pages: string[] = [];
  let out = "";
  let skipDepth = 0;
  let cellOpen = false;
  const newline = () => {
    if (out && !out.endsWith("\n")) out += "\n";
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (SKIP.has(name)) skipDepth++;
        const style = (attrs.style ?? "").toLowerCase();
        if (/page-break-before\s*:\s*always|break-before\s*:\s*page/.test(style) && out.trim()) {
          pages.push(out);
          out = "";
        }
        if (name === "td" || name === "th") {
          if (cellOpen) out += "\t";
          cellOpen = true;
        } else if (BLOCK.has(name)) {
          newline();
          if (name === "tr") cellOpen = false;
        }
      },
      ontext(text) {
        if (skipDepth > 0) return;
        const t = text.replace(/\s+/g, " ");
        if (!t.trim() && (out.endsWith("\n") || out.endsWith("\t") || !out)) return;
        out += out.endsWith("\n") || out.endsWith("\t") ? t.trimStart() : t;
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        if (BLOCK.has(name)) newline();
        if (name === "table") cellOpen = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  pages.push(out);
  return pages.map((text, i) => ({ number: i + 1, text: tidy(text) }));
}

function tidy(text: string): string {
  return text
    .split("\n")
    .map((l) =>
      l
        .replace(/[ \u00a0]+/g, " ")
        .replace(/ ?\t ?/g, "\t")
        .trim(),
    )
    .filter((l, i, all) => l || (i > 0 && all[i - 1]))
    .join("\n")
    .trim();
}
