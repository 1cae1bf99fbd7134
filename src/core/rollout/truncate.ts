import type { ContentPart } from "../schema/trajectory";

export interface Truncation {
  original_chars: number;
  kept_chars: number;
}

/**
 * Keep a tool result within `limit` characters: the head and the tail survive (errors
 * are usually at the end), the middle is replaced by a marker saying how much was cut.
 */
export function truncateText(text: string, limit: number): { text: string; truncated?: Truncation } {
  if (text.length <= limit) return { text };
  const marker = (cut: number) => `\n[… ${cut} characters cut …]\n`;
  const room = Math.max(0, limit - marker(text.length).length);
  const head = Math.ceil(room / 2);
  const tailLen = room - head;
  const cut = text.length - head - tailLen;
  const out = text.slice(0, head) + marker(cut) + (tailLen > 0 ? text.slice(-tailLen) : "");
  return { text: out, truncated: { original_chars: text.length, kept_chars: head + tailLen } };
}

/** Truncate a tool output; for multi-part outputs the text parts share the budget and images pass through. */
export function truncateOutput(output: string | ContentPart[], limit: number): { output: string | ContentPart[]; truncated?: Truncation } {
  if (typeof output === "string") {
    const r = truncateText(output, limit);
    return { output: r.text, ...(r.truncated ? { truncated: r.truncated } : {}) };
  }
  const total = output.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0);
  if (total <= limit) return { output };
  let kept = 0;
  const parts = output.map((p) => {
    if (p.type !== "text") return p;
    const share = Math.floor((p.text.length / total) * limit);
    const r = truncateText(p.text, share);
    kept += r.truncated ? r.truncated.kept_chars : p.text.length;
    return { type: "text" as const, text: r.text };
  });
  return { output: parts, truncated: { original_chars: total, kept_chars: kept } };
}
