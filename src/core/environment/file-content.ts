import type { BinaryContent, FileContent, FileMap } from "../schema/common";

/**
 * A task's file contents (seed files, tests, solutions) are text or `{ base64 }` bytes. Text
 * stays text where the code needs it (diffs, the file tools' views, stdio cases); every copy
 * into a sandbox goes through {@link sandboxFiles}, byte for byte.
 */

export function isBinary(c: FileContent): c is BinaryContent {
  return typeof c !== "string";
}

/** The exact bytes of a file's content. */
export function fileBytes(c: FileContent): Buffer {
  return typeof c === "string" ? Buffer.from(c, "utf8") : Buffer.from(c.base64, "base64");
}

/** The text of a text file; null for a binary one. */
export function fileText(c: FileContent): string | null {
  return typeof c === "string" ? c : null;
}

/**
 * Bytes read from disk as file content: text when they are UTF-8 without NUL bytes (the test
 * the diffs use; decoding them and encoding back gives the same bytes), else base64. Never a
 * lossy decode: a SQLite database or a PNG keeps every byte.
 */
export function contentOfBytes(b: Buffer): FileContent {
  if (!b.includes(0)) {
    const s = b.toString("utf8");
    if (Buffer.from(s, "utf8").equals(b)) return s;
  }
  return { base64: b.toString("base64") };
}

/** A file map as a sandbox writes it: text as text (UTF-8), binary content as its bytes. */
export function sandboxFiles(m: FileMap | undefined): Record<string, string | Buffer> {
  const out: Record<string, string | Buffer> = {};
  for (const [p, c] of Object.entries(m ?? {})) out[p] = typeof c === "string" ? c : fileBytes(c);
  return out;
}

/** The text files of a map (binary ones left out), for code that reads them as text. */
export function textFiles(m: FileMap | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, c] of Object.entries(m ?? {})) if (typeof c === "string") out[p] = c;
  return out;
}
