import type { Problem } from "../../core/model/problem";

/** A text replacement by 0-based offsets, what a quick fix applies. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Offset of a 1-based line/column in text. */
export function offsetAt(text: string, line: number, column: number): number {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return Math.min(off + column - 1, text.length);
}

/** A value written the way the file's language spells it (YAML flow style or JSON). */
function literal(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/**
 * The edit for a problem's mechanical fix, or undefined when there is none or the text
 * no longer matches (the buffer changed since). `json` picks JSON quoting for task files.
 */
export function fixEdit(text: string, problem: Problem, json: boolean): TextEdit | undefined {
  const fix = problem.fix;
  if (!fix) return undefined;
  const start = offsetAt(text, problem.line, problem.column);
  const end = offsetAt(text, problem.endLine, problem.endColumn);
  if (fix.kind === "rename-field") {
    const span = text.slice(start, end);
    const at = span.indexOf(fix.from);
    if (at < 0) return undefined;
    return { start: start + at, end: start + at + fix.from.length, text: fix.to };
  }
  const key = json ? JSON.stringify(fix.field) : fix.field;
  const entry = `${key}: ${literal(fix.value)}`;
  // The problem spans the mapping that lacks the field. Flow style ({…} in YAML, any
  // JSON object): insert right after the brace. Block YAML: a new line at the mapping's
  // indentation, before its first key.
  const open = text.slice(start).search(/\S/);
  const first = open < 0 ? start : start + open;
  if (text[first] === "{") {
    const rest = text.slice(first + 1);
    const empty = /^\s*}/.test(rest);
    return { start: first + 1, end: first + 1, text: empty ? ` ${entry} ` : ` ${entry},` };
  }
  const lineStart = text.lastIndexOf("\n", first - 1) + 1;
  const indent = text.slice(lineStart, first);
  if (/^[ \t]*$/.test(indent)) return { start: lineStart, end: lineStart, text: `${indent}${entry}\n` };
  // The mapping starts mid-line (after `- ` in a list): insert before it on its own line.
  return { start: first, end: first, text: `${entry}\n${" ".repeat(first - lineStart)}` };
}
