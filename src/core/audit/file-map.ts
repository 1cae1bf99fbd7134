/** A task's file map as the sandbox takes it: text as is, { base64 } entries as their bytes. */
export function sandboxFiles(map: Record<string, string | { base64: string }> | undefined): Record<string, string | Buffer> {
  const out: Record<string, string | Buffer> = {};
  for (const [k, v] of Object.entries(map ?? {})) out[k] = typeof v === "string" ? v : Buffer.from(v.base64, "base64");
  return out;
}

/** Only the text files of a file map (the audit reads and rewrites source code, never binaries). */
export function textFiles(map: Record<string, string | { base64: string }> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/** A file map as text, or null when any of its files is binary (what takes the text files only would drop it). */
export function allTextFiles(map: Record<string, string | { base64: string }> | undefined): Record<string, string> | null {
  const out = textFiles(map);
  return Object.keys(out).length === Object.keys(map ?? {}).length ? out : null;
}
