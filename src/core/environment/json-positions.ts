import type { Span } from "../model/problem";

/** Offsets of one value (and its key, inside an object) in the source text. */
interface Range {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Deepest nesting of lists and objects the loader accepts (a task needs a handful of levels). */
export const MAX_NESTING = 256;

/**
 * Offset of the bracket that opens level `max + 1` of nested lists/objects, or -1. Brackets
 * inside strings do not count (JSON strings; for YAML also single quotes and # comments,
 * which is close enough to catch a hostile file before its parser recurses that deep).
 */
export function deepestNesting(text: string, max: number, flavour: "json" | "yaml"): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22 && (flavour === "json" || startsScalar(text, i))) {
      // Skip a double-quoted string, escapes included.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22 || (flavour === "json" && d === 0x0a)) break;
      }
    } else if (flavour === "yaml" && c === 0x27 && startsScalar(text, i)) {
      for (i++; i < n && text.charCodeAt(i) !== 0x27; i++);
    } else if (flavour === "yaml" && c === 0x23 && (i === 0 || text.charCodeAt(i - 1) <= 0x20)) {
      for (i++; i < n && text.charCodeAt(i) !== 0x0a; i++);
    } else if (flavour === "yaml" && (c === 0x2d || c === 0x3f) && startsLine(text, i)) {
      // Block lists (and complex keys) written compactly on one line, "- - - - 1", nest a level per indicator.
      let levels = 0;
      let j = i;
      while (j + 1 < n && (text.charCodeAt(j) === 0x2d || text.charCodeAt(j) === 0x3f) && text.charCodeAt(j + 1) === 0x20) {
        if (depth + ++levels > max) return j;
        for (j += 2; j < n && text.charCodeAt(j) === 0x20; j++);
      }
      i = Math.max(i, j - 1);
    }
  }
  return -1;
}

/** Whether only spaces stand between `at` and the start of its line. */
function startsLine(text: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && text.charCodeAt(j) === 0x20) j--;
  return j < 0 || text.charCodeAt(j) === 0x0a;
}

/** A YAML quote opens a string only where a scalar starts (after `: `, `- `, `[`, `{`, `,` or at a line's start). */
function startsScalar(text: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j--;
  if (j < 0) return true;
  const p = text.charCodeAt(j);
  return p === 0x0a || p === 0x3a || p === 0x2d || p === 0x5b || p === 0x7b || p === 0x2c || p === 0x3f;
}

/**
 * A strict JSON parser that records where every value is, so that a schema problem
 * deep in a task line can be reported at its exact column. JSON.parse in Node 20 gives
 * no offsets for syntax errors; this one does.
 */
export function parseJsonWithPositions(text: string): { value: unknown; ranges: Map<string, Range>; duplicates: DuplicateKey[] } {
  const p = new PositionParser(text);
  const v = p.value([]);
  p.ws();
  if (p.i < text.length) p.fail(`unexpected ${p.describe()} after the JSON value`);
  return { value: v, ranges: p.ranges, duplicates: p.duplicates };
}

/** The parser's state: the text, the offset it has reached, and the ranges and duplicates found so far. */
class PositionParser {
  i = 0;
  readonly ranges = new Map<string, Range>();
  readonly duplicates: DuplicateKey[] = [];

  constructor(private readonly text: string) {}

  ws(): void {
    const text = this.text;
    while (this.i < text.length && (text[this.i] === " " || text[this.i] === "\t" || text[this.i] === "\n" || text[this.i] === "\r"))
      this.i++;
  }

  fail(msg: string): never {
    // No stack trace: the error is a message and an offset, and capturing a trace per broken line was most of their cost.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const e = new JsonSyntaxError(msg, this.i);
    Error.stackTraceLimit = limit;
    throw e;
  }

  describe(): string {
    return this.i >= this.text.length ? "end of input" : `'${this.text[this.i]}'`;
  }

  str(): string {
    const text = this.text;
    const start = this.i;
    this.i++;
    for (;;) {
      if (this.i >= text.length) {
        this.i = start;
        this.fail("unterminated string");
      }
      const c = text.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c === 0x5c) this.i += text[this.i + 1] === "u" ? 6 : 2;
      else if (c < 0x20) this.fail("control character in string (escape it as \\n, \\t, …)");
      else this.i++;
    }
    this.i++;
    try {
      return JSON.parse(text.slice(start, this.i)) as string;
    } catch {
      this.i = start;
      return this.fail("invalid escape in string");
    }
  }

  value(path: PropertyKey[], key?: { start: number; end: number }): unknown {
    // Recursion is bounded here rather than by the stack: a hostile line nests thousands deep.
    if (path.length > MAX_NESTING) this.fail(`lists and objects nested deeper than ${MAX_NESTING} levels`);
    this.ws();
    const start = this.i;
    const c = this.text[this.i];
    const v = c === "{" ? this.object(path) : c === "[" ? this.array(path) : c === '"' ? this.str() : this.scalar();
    this.ranges.set(JSON.stringify(path), { start, end: this.i, keyStart: key?.start, keyEnd: key?.end });
    return v;
  }

  private object(path: PropertyKey[]): Record<string, unknown> {
    const text = this.text;
    this.i++;
    const obj: Record<string, unknown> = {};
    this.ws();
    if (text[this.i] === "}") {
      this.i++;
      return obj;
    }
    for (;;) {
      this.ws();
      if (text[this.i] !== '"') this.fail(`expected a quoted field name, found ${this.describe()}`);
      const ks = this.i;
      const k = this.str();
      const ke = this.i;
      this.ws();
      if (text[this.i] !== ":") this.fail(`expected ':' after field name, found ${this.describe()}`);
      this.i++;
      if (Object.hasOwn(obj, k)) {
        const first = this.ranges.get(JSON.stringify([...path, k]));
        this.duplicates.push({ path: [...path, k], keyStart: ks, keyEnd: ke, firstKeyStart: first?.keyStart ?? first?.start ?? ks });
      }
      obj[k] = this.value([...path, k], { start: ks, end: ke });
      this.ws();
      if (text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (text[this.i] === "}") {
        this.i++;
        return obj;
      }
      this.fail(`expected ',' or '}', found ${this.describe()}`);
    }
  }

  private array(path: PropertyKey[]): unknown[] {
    const text = this.text;
    this.i++;
    const arr: unknown[] = [];
    this.ws();
    if (text[this.i] === "]") {
      this.i++;
      return arr;
    }
    for (;;) {
      arr.push(this.value([...path, arr.length]));
      this.ws();
      if (text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (text[this.i] === "]") {
        this.i++;
        return arr;
      }
      this.fail(`expected ',' or ']', found ${this.describe()}`);
    }
  }

  private scalar(): unknown {
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.i, this.i + 400));
    if (!m) return this.fail(`unexpected ${this.describe()}`);
    this.i += m[0].length;
    return JSON.parse(m[0]);
  }
}

/** A field named twice in one object: JSON.parse silently keeps the last, which hides an author's mistake. */
export interface DuplicateKey {
  path: PropertyKey[];
  keyStart: number;
  keyEnd: number;
  firstKeyStart: number;
}

/**
 * Whether a line that JSON.parse took may name a field twice: every field name is a string
 * followed by a colon, so fewer `"…":` markers than parsed fields is impossible and more
 * means a duplicate or a colon after a quote inside a string. Only then is the slower
 * positional parse worth running to tell which.
 */
export function mayHaveDuplicateKeys(text: string, value: unknown): boolean {
  let markers = 0;
  for (const _ of text.matchAll(/"\s*:/g)) markers++;
  return markers > countKeys(value);
}

function countKeys(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + countKeys(x), 0);
  if (v === null || typeof v !== "object") return 0;
  let n = 0;
  for (const x of Object.values(v)) n += 1 + countKeys(x);
  return n;
}

/** Offset → 1-based line and column. */
export class LineMap {
  private readonly starts: number[] = [0];
  constructor(
    text: string,
    private readonly lineOffset = 0,
  ) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  pos(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1 + this.lineOffset, column: offset - this.starts[lo]! + 1 };
  }
  span(start: number, end: number): Span {
    const a = this.pos(start);
    const b = this.pos(end);
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  }
}

export class JsonPositionIndex {
  constructor(
    private readonly ranges: Map<string, Range>,
    private readonly lines: LineMap,
  ) {}
  spanOf(path: ReadonlyArray<PropertyKey>, atKey = false): Span {
    for (let n = path.length; n >= 0; n--) {
      const r = this.ranges.get(JSON.stringify(path.slice(0, n)));
      if (!r) continue;
      if (atKey && n === path.length && r.keyStart !== undefined) return this.lines.span(r.keyStart, r.keyEnd ?? r.keyStart);
      return this.lines.span(r.start, r.end);
    }
    return this.lines.span(0, 0);
  }
}
