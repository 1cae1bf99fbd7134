import type { TrajectoryEvent } from "../../schema/trajectory";
import { contentText } from "./summarise";

/** What a search hit is in: a message, a tool call or an observation (errors count as observations). */
export type HitKind = "message" | "tool_call" | "observation";

/** The searchable text of an event, or null for events without any (start, reward, end). */
export function eventText(e: TrajectoryEvent): { kind: HitKind; text: string } | null {
  switch (e.type) {
    case "message": {
      const calls = e.tool_calls?.map((c) => `${c.name} ${c.arguments}`).join("\n") ?? "";
      return { kind: "message", text: `${contentText(e.content)}${calls ? `\n${calls}` : ""}` };
    }
    case "tool_call":
      return { kind: "tool_call", text: `${e.name} ${typeof e.arguments === "string" ? e.arguments : JSON.stringify(e.arguments)}` };
    case "observation":
      return { kind: "observation", text: `${e.name} ${contentText(e.output)}${e.error ? `\n${e.error}` : ""}` };
    case "error":
      return { kind: "observation", text: `${e.message}${e.stderr ? `\n${e.stderr}` : ""}` };
    default:
      return null;
  }
}

const TOKEN = /[\p{L}\p{N}_]+/gu;
const MAX_TOKEN = 40;

/** For ASCII: 1 for the characters a word is made of (letters, digits, `_`), 0 for the rest. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[A-Za-z0-9_]/.test(String.fromCharCode(c)) ? 1 : 0;

/**
 * Calls `each` with every lower-cased word token of a text, in order, repeats included.
 * Pure ASCII text (nearly all of a trajectory) is split by a table lookup per character;
 * from the first other character on the text goes through the Unicode regex, so both give
 * exactly the tokens of `[\p{L}\p{N}_]+` over the lower-cased text.
 */
export function eachToken(text: string, each: (word: string) => void): void {
  const lower = text.toLowerCase();
  const n = lower.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = lower.charCodeAt(i);
    if (c >= 128) {
      // The rest, from the start of the word being read, by the regex (its words may hold any letter).
      const re = new RegExp(TOKEN.source, "gu");
      re.lastIndex = start >= 0 ? start : i;
      for (let m = re.exec(lower); m; m = re.exec(lower)) if (m[0].length <= MAX_TOKEN) each(m[0]);
      return;
    }
    if (ASCII_WORD[c]) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start <= MAX_TOKEN) each(lower.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0 && n - start <= MAX_TOKEN) each(lower.slice(start, n));
}

/** Lower-cased word tokens (letters, digits, `_`), each once, in order of first appearance. */
export function tokens(text: string): string[] {
  const seen = new Set<string>();
  eachToken(text, (t) => seen.add(t));
  return [...seen];
}

/** Where the query's words occur in a text (case-insensitive), for highlighting; at most `max` ranges. */
export function matchRanges(text: string, words: string[], max = 20): Array<[number, number]> {
  const lower = text.toLowerCase();
  const out: Array<[number, number]> = [];
  for (const w of words) {
    for (let at = lower.indexOf(w); at >= 0 && out.length < max; at = lower.indexOf(w, at + w.length)) out.push([at, at + w.length]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** A short piece of text around the first match, with the match ranges shifted into it. */
export function snippet(text: string, words: string[], width = 160): { text: string; ranges: Array<[number, number]> } {
  const all = matchRanges(text, words);
  const first = all[0]?.[0] ?? 0;
  const from = Math.max(0, first - Math.floor(width / 3));
  const to = Math.min(text.length, from + width);
  const cut = text.slice(from, to).replace(/\s/g, " ");
  const prefix = from > 0 ? "…" : "";
  const ranges = all
    .filter(([s, e]) => s >= from && e <= to)
    .map(([s, e]): [number, number] => [s - from + prefix.length, e - from + prefix.length]);
  return { text: `${prefix}${cut}${to < text.length ? "…" : ""}`, ranges };
}
