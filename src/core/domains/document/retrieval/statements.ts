import { STATEMENT_KINDS, type StatementKind, type Vocabulary, normalizePhrase } from "./vocabulary";

/** Share of a page's non-empty lines that hold a figure, above which it reads as a table. */
const TABLE_DENSITY = 0.35;

/**
 * Which primary financial statements a page prints. A page is one when it is mostly table
 * rows and either its heading (first lines) names the statement, or it carries at least
 * three of the statement's characteristic line items.
 */
export function tagStatements(text: string, vocab: Vocabulary, normalized?: string): StatementKind[] {
  const lines = text.split("\n").filter((l) => l.trim());
  if (lines.length < 5) return [];
  const withFigures = lines.filter((l) => /\d[\d,]*(?:\.\d+)?\)?\s*$|\d{1,3},\d{3}/.test(l)).length;
  if (withFigures / lines.length < TABLE_DENSITY) return [];
  const head = normalizePhrase(lines.slice(0, 12).join(" "));
  const body = normalized ?? normalizePhrase(text);
  const out: StatementKind[] = [];
  for (const kind of STATEMENT_KINDS) {
    const spec = vocab.statements[kind];
    // A table of contents or an index names every statement in its first lines: it is not one.
    const titled = spec.titles.some((t) => head.includes(t)) && !/\bcontents\b|\bindex to\b/.test(head.replace(/table of contents/g, ""));
    const items = spec.lines.filter((l) => body.includes(l)).length;
    if ((titled && items >= 2) || items >= 4) out.push(kind);
  }
  return out;
}
