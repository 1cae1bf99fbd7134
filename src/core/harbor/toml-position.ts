import type { Span } from "../model/problem";

/**
 * Where a key sits in a TOML file: smol-toml gives values, not positions, so the text is
 * scanned for the table header (`[a.b]`, `[[a]]`) and then the `key =` line under it. Dotted
 * keys and inline tables are found by their table's header line. Falls back to the header,
 * then to the start of the file, so a problem always has a place.
 */
export function tomlSpan(text: string, table: readonly string[], key?: string, arrayIndex?: number): Span {
  const lines = text.split("\n");
  const want = table.join(".");
  let current = "";
  let headerLine = want === "" ? 0 : -1;
  const [from, to] = arrayIndex === undefined ? [0, lines.length] : arrayEntryLines(lines, table[0] ?? "", arrayIndex);
  for (let i = from; i < to; i++) {
    const line = lines[i] ?? "";
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      current = (header[1] ?? "").replace(/\s*\.\s*/g, ".").replace(/"/g, "");
      if (current === want && headerLine < 0) headerLine = i;
      continue;
    }
    if (current !== want || key === undefined) continue;
    const m = new RegExp(`^(\\s*)("?)${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\2\\s*[=.]`).exec(line);
    if (m) {
      const column = (m[1]?.length ?? 0) + 1;
      return { line: i + 1, column, endLine: i + 1, endColumn: column + key.length + (m[2] ? 2 : 0) };
    }
  }
  if (headerLine >= 0) {
    const text = lines[headerLine] ?? "";
    return { line: headerLine + 1, column: 1, endLine: headerLine + 1, endColumn: text.length + 1 };
  }
  return { line: 1, column: 1, endLine: 1, endColumn: 1 };
}

/** The lines of the index-th `[[name]]` entry: from its header to the next `[[name]]` header (all lines when there is no such entry). */
function arrayEntryLines(lines: readonly string[], name: string, index: number): [number, number] {
  const header = new RegExp(`^\\s*\\[\\[\\s*"?${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"?\\s*\\]\\]`);
  const starts = lines.flatMap((l, i) => (header.test(l) ? [i] : []));
  const start = starts[index];
  if (start === undefined) return [0, lines.length];
  return [start, starts[index + 1] ?? lines.length];
}
