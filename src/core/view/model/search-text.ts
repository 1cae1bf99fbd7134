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

/** Lower-cased word tokens (letters, digits, `_`), each once, in order of first appearance. */
export function tokens(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.toLowerCase().matchAll(TOKEN)) {
    const t = m[0];
    if (t.length <= MAX_TOKEN) seen.add(t);
  }
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
