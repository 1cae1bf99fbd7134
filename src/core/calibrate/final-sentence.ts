import { findQuantities } from "../reward/comparators/quantity";

/**
 * The final sentence of a reply: what `--final-sentence` submits when a label carries only the
 * whole reply. The rule, documented in docs/reference.md: a line break ends a sentence, and so
 * does `.`, `!` or `?` followed by a space, unless the full stop closes an abbreviation
 * ("Inc.", "U.S.", "e.g.", a single initial) or a list mark ("2."); a full stop between digits ("1.50")
 * never ends one.
 * Blank sentences and bullet or heading marks are dropped. The answer is the last sentence that
 * states a figure (a reply that ends with its sources or caveats, "This can be found under Item 7.",
 * states its answer before them), else the last sentence.
 */

const ABBREVIATIONS = new Set([
  "inc",
  "co",
  "corp",
  "ltd",
  "llc",
  "plc",
  "no",
  "vs",
  "etc",
  "approx",
  "e.g",
  "i.e",
  "u.s",
  "u.k",
  "mr",
  "mrs",
  "ms",
  "dr",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
  "fig",
  "est",
]);

/** The word a full stop closes: "Inc" of "Apple Inc.", "u.s" of "the U.S.". */
function wordBefore(text: string, dot: number): string {
  let i = dot;
  while (i > 0 && /[\p{L}.]/u.test(text[i - 1] ?? "")) i--;
  return text.slice(i, dot).toLowerCase();
}

function endsSentence(text: string, i: number): boolean {
  const ch = text[i];
  if (ch !== "." && ch !== "!" && ch !== "?") return false;
  const next = text[i + 1];
  if (next !== undefined && !/\s/.test(next)) return false;
  if (ch !== ".") return true;
  const word = wordBefore(text, i);
  if (ABBREVIATIONS.has(word)) return false;
  // An ordered list's mark ("2. Net income…") at the start of a line.
  if (/^\s*\d+$/.test(text.slice(text.lastIndexOf("\n", i) + 1, i))) return false;
  // A single initial ("J. Smith"): a lone capital at the start or after a space.
  const lone = /^\p{Lu}$/u.test(text[i - 1] ?? "") && (i < 2 || /\s/.test(text[i - 2] ?? ""));
  return !lone;
}

/** The sentences of a text, in order, trimmed, without bullet or heading marks. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const push = (end: number) => {
    const s = text
      .slice(start, end)
      .trim()
      .replace(/^(?:[-*•#>]+|\d+[.)])\s+/, "")
      .trim();
    if (/[\p{L}\p{N}]/u.test(s)) out.push(s);
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n") {
      push(i);
      start = i + 1;
    } else if (endsSentence(text, i)) {
      push(i + 1);
      start = i + 1;
    }
  }
  push(text.length);
  return out;
}

/** The reply's last sentence that states a figure, else its last sentence; the reply itself when it has none. */
export function finalSentence(reply: string): string {
  const all = sentences(reply);
  return all.filter((s) => findQuantities(s).length > 0).at(-1) ?? all.at(-1) ?? reply.trim();
}
