import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument, type Document } from "yaml";
import type { Span } from "./problem";

/**
 * Source positions of fields in a YAML (or JSON) document, from the `yaml` package's
 * node ranges and line counter. JSON is parsed the same way: it is a YAML flow document.
 */
export class PositionIndex {
  private readonly lc = new LineCounter();
  readonly doc: Document.Parsed;

  constructor(
    text: string,
    private readonly lineOffset = 0,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lc, keepSourceTokens: false, prettyErrors: false, uniqueKeys: false });
  }

  /** The span of the value (or its key) at a path; falls back to the deepest existing ancestor. */
  spanOf(path: ReadonlyArray<PropertyKey>, atKey = false): Span {
    let node: unknown = this.doc.contents;
    let keyNode: unknown;
    for (const seg of path) {
      keyNode = undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        keyNode = pair.key;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof seg === "number" && node.items[seg]) {
        node = node.items[seg];
      } else break;
    }
    const target = (atKey && keyNode ? keyNode : node) as Node | null | undefined;
    const range = target?.range ?? [0, 0, 0];
    return this.span(range[0], range[1]);
  }

  span(start: number, end: number): Span {
    const a = this.lc.linePos(start);
    const b = this.lc.linePos(Math.max(start, end));
    return { line: a.line + this.lineOffset, column: a.col, endLine: b.line + this.lineOffset, endColumn: b.col };
  }
}
