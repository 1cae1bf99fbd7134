import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument, type Document, visit } from "yaml";
import { deepestNesting, MAX_NESTING } from "./json-positions";
import type { Span } from "../model/problem";
import { openingQuote } from "./yaml-quote";

/** Alias expansions allowed when a document becomes a value: more is a "billion laughs" bomb. */
const MAX_ALIAS_COUNT = 100;

/**
 * Source positions of fields in a YAML (or JSON) document, from the `yaml` package's
 * node ranges and line counter. JSON is parsed the same way: it is a YAML flow document.
 */
export class PositionIndex {
  private readonly lc = new LineCounter();
  readonly doc: Document.Parsed;

  constructor(
    private readonly text: string,
    private readonly lineOffset = 0,
  ) {
    // Flow collections nested thousands deep overflow the parser's stack (slowly): refused first.
    this.tooDeep = deepestNesting(text, MAX_NESTING, "yaml");
    this.doc = parseDocument(this.tooDeep >= 0 ? "" : text, { lineCounter: this.lc, keepSourceTokens: false, prettyErrors: false });
    if (this.tooDeep >= 0) {
      this.lc.lineStarts.length = 0;
      for (const start of lineStarts(text)) this.lc.addNewLine(start);
    }
  }

  /** Offset where flow collections nest deeper than MAX_NESTING, else -1. */
  private readonly tooDeep: number;

  /**
   * What makes the text unusable as a document, positioned: syntax errors, nesting too deep,
   * a key given twice (YAML would keep the last silently). Messages start "invalid YAML: ".
   */
  errors(): Array<{ span: Span; message: string }> {
    if (this.tooDeep >= 0)
      return [
        {
          span: this.span(this.tooDeep, this.tooDeep + 1),
          message: `invalid YAML: lists or mappings nested deeper than ${MAX_NESTING} levels`,
        },
      ];
    // An unknown tag (!!js/function, !custom) would silently become a string: refused, at the tag.
    const tags = this.doc.warnings
      .filter((w) => w.code === "TAG_RESOLVE_FAILED")
      .map((w) => ({
        span: this.span(w.pos[0], w.pos[1]),
        message: `invalid YAML: unknown tag ${this.text.slice(w.pos[0], w.pos[1]).trim()}; only YAML's own types are read (a tagged value would silently become text)`,
      }));
    return [
      ...tags,
      ...this.doc.errors.map((e) => {
        const span = this.span(e.pos[0], e.pos[1]);
        const unclosed = e.code === "MISSING_CHAR" ? /^Missing closing (["'])quote/.exec(e.message)?.[1] : undefined;
        if (unclosed) {
          const open = openingQuote(this.text, e.pos[0], unclosed as '"' | "'");
          if (open >= 0)
            return {
              span: this.span(open, open + 1),
              message: `invalid YAML: this ${unclosed === '"' ? "double" : "single"} quote is never closed (the string runs on to the end of the file)`,
            };
        }
        if (e.code === "DUPLICATE_KEY") {
          const key = this.keyAt(e.pos[0]);
          return {
            span,
            message: `invalid YAML: field ${key === undefined ? "" : `'${key}' `}is given twice (YAML would silently keep the last one)`,
          };
        }
        // Nesting too deep for the parser's stack in a form the scan above does not count (by indentation).
        if (/call stack/i.test(e.message))
          return { span, message: "invalid YAML: lists or mappings nested too deeply here (more than the parser can read)" };
        return { span, message: `invalid YAML: ${e.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}` };
      }),
    ];
  }

  /** The document as a plain value, or where it expands too many aliases (a "billion laughs" bomb). */
  value(): { ok: true; value: unknown } | { ok: false; span: Span; message: string } {
    try {
      return { ok: true, value: this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown };
    } catch (e) {
      let at: [number, number] = [0, 0];
      visit(this.doc, {
        Alias: (_k, node) => {
          at = [node.range?.[0] ?? 0, node.range?.[1] ?? 0];
          return visit.BREAK;
        },
      });
      const message = (e as Error).message;
      const why = /alias/i.test(message)
        ? `its aliases (*name) expand to too much data (more than ${MAX_ALIAS_COUNT} expansions of one alias): refused as a resource-exhaustion attack`
        : /call stack/i.test(message)
          ? "lists or mappings nested too deeply (more than the parser can read)"
          : message;
      return { ok: false, span: this.span(at[0], at[1]), message: `invalid YAML: ${why}` };
    }
  }

  /** The key of the map pair whose key starts at `offset`, for naming a duplicate. */
  private keyAt(offset: number): string | undefined {
    let found: string | undefined;
    visit(this.doc, {
      Pair: (_k, pair) => {
        if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
          found = String(pair.key.value);
          return visit.BREAK;
        }
        return undefined;
      },
    });
    return found;
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

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}
