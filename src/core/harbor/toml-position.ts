import type { Span } from "../model/problem";

/**
 * Where a value sits in a TOML file. smol-toml gives values, not positions, so the text is
 * scanned: each `[table]` / `[[array]]` header is resolved to the data path it opens (the n-th
 * `[[steps]]` is `steps.n`, a `[steps.verifier]` under it `steps.n.verifier`), each `key =` line
 * (dotted keys too) to the path it sets, and a key inside an inline table is found on its
 * line. An array of tables is placed at its first `[[…]]` entry. A path is placed at the line that sets the most of it, else at the header of the
 * closest table that holds it, else at the start of the file: a problem always has a place.
 */

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY_PART = `(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)`;
const KEY_LINE = new RegExp(`^(\\s*)(${KEY_PART}(?:\\s*\\.\\s*${KEY_PART})*)\\s*=`);

/** A dotted key's parts, quotes taken off. */
function keyParts(key: string): string[] {
  return (key.match(new RegExp(KEY_PART, "g")) ?? []).map((p) => p.replace(/^["']|["']$/g, ""));
}

/** A header's data path: arrays of tables seen so far give the index of their last entry. */
function resolveHeader(h: RegExpExecArray, counts: Map<string, number>): string[] {
  const parts = keyParts(h[2] ?? "");
  const out: string[] = [];
  parts.forEach((p, j) => {
    out.push(p);
    const at = out.join(".");
    if (j === parts.length - 1 && h[1] === "[[") {
      const n = counts.get(at) ?? 0;
      counts.set(at, n + 1);
      out.push(String(n));
    } else if (counts.has(at)) out.push(String((counts.get(at) ?? 1) - 1));
  });
  return out;
}

/** How many leading parts of `want` the path `got` matches: -1 when `got` is not a prefix of it. */
function prefixLength(got: readonly string[], want: readonly string[]): number {
  if (got.length > want.length) return -1;
  return got.every((g, i) => g === want[i]) ? got.length : -1;
}

/** The span of the data path in the TOML text (1-based lines and columns). */
export function tomlPathSpan(text: string, path: readonly PropertyKey[]): Span {
  const want = path.map(String);
  const lines = text.split("\n");
  let best = { score: -1, span: { line: 1, column: 1, endLine: 1, endColumn: 1 } as Span };
  const offer = (score: number, span: Span) => {
    if (score > best.score) best = { score, span };
  };
  let header: string[] = [];
  const counts = new Map<string, number>();
  lines.forEach((line, i) => {
    const h = HEADER.exec(line);
    if (h) {
      header = resolveHeader(h, counts);
      const span = { line: i + 1, column: 1, endLine: i + 1, endColumn: line.length + 1 };
      const n = prefixLength(header, want);
      if (n >= 0) offer(n * 2, span);
      // The first `[[name]]` entry stands for the array of tables `name` itself.
      else if (h[1] === "[[" && header.length === want.length + 1 && prefixLength(header.slice(0, -1), want) === want.length)
        offer(want.length * 2, span);
      return;
    }
    const k = KEY_LINE.exec(line);
    if (!k) return;
    const keyPath = [...header, ...keyParts(k[2] ?? "")];
    const n = prefixLength(keyPath, want);
    if (n < 0) return;
    const column = (k[1]?.length ?? 0) + 1;
    offer(n * 2 + 1, { line: i + 1, column, endLine: i + 1, endColumn: column + (k[2]?.length ?? 0) });
    for (const [j, at] of inlineKeys(line, k[0].length, want.slice(n)).entries())
      offer((n + j + 1) * 2 + 1, { line: i + 1, column: at.column, endLine: i + 1, endColumn: at.column + at.length });
  });
  return best.span;
}

/** The keys of an inline table on a line (`env = { A = "x" }`), followed in order as far as the path names them. */
function inlineKeys(line: string, from: number, rest: readonly string[]): Array<{ column: number; length: number }> {
  const found: Array<{ column: number; length: number }> = [];
  let pos = from;
  for (const part of rest) {
    if (/^\d+$/.test(part)) break;
    const re = new RegExp(`[{,]\\s*("?)${part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\1\\s*=`, "g");
    re.lastIndex = pos;
    const m = re.exec(line);
    if (!m) break;
    const start = m.index + m[0].indexOf(part) - (m[1] ? 1 : 0);
    found.push({ column: start + 1, length: part.length + (m[1] ? 2 : 0) });
    pos = m.index + m[0].length;
  }
  return found;
}

/** Where a key of a table sits: `tomlPathSpan` for `table.key`, the n-th entry of an array of tables when arrayIndex is given. */
export function tomlSpan(text: string, table: readonly string[], key?: string, arrayIndex?: number): Span {
  const [first, ...rest] = table;
  const at = arrayIndex === undefined || first === undefined ? [...table] : [first, arrayIndex, ...rest];
  return tomlPathSpan(text, key === undefined ? at : [...at, key]);
}

/** The table a line of task.toml is in, as written (no array index): the last header above it ("" before any). */
export function tableAt(lines: readonly string[], line: number): string {
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const h = HEADER.exec(lines[i] ?? "");
    if (h) return keyParts(h[2] ?? "").join(".");
  }
  return "";
}
