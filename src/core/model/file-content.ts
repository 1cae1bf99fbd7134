import type { BinaryContent, FileContent, FileMap } from "../schema/common";

/**
 * A task's file contents (seed files, tests, solutions) are text, `{ base64 }` bytes, or `{ text }`;
 * either object form may say `executable: true`. Text stays text where the code needs it (diffs,
 * the file tools' views, stdio cases); every copy into a sandbox goes through {@link sandboxFiles},
 * byte for byte, and then markExecutable (sandbox/task-files.ts) for the files that must keep their executable bits.
 */

export function isBinary(c: FileContent): c is BinaryContent {
  return typeof c !== "string" && "base64" in c;
}

/** Whether the file must reach the sandbox with mode 755. */
export function isExecutable(c: FileContent): boolean {
  return typeof c !== "string" && c.executable === true;
}

/** The exact bytes of a file's content. */
export function fileBytes(c: FileContent): Buffer {
  if (typeof c === "string") return Buffer.from(c, "utf8");
  return "base64" in c ? Buffer.from(c.base64, "base64") : Buffer.from(c.text, "utf8");
}

/** The text of a text file; null for a binary one. */
export function fileText(c: FileContent): string | null {
  if (typeof c === "string") return c;
  return "text" in c ? c.text : null;
}

/**
 * Bytes read from disk as file content: text when they are UTF-8 without NUL bytes (the test
 * the diffs use; decoding them and encoding back gives the same bytes), else base64. Never a
 * lossy decode: a SQLite database or a PNG keeps every byte. An executable file (any x bit set
 * on disk) keeps the fact in the object form.
 */
export function contentOfBytes(b: Buffer, executable = false): FileContent {
  if (!b.includes(0)) {
    const s = b.toString("utf8");
    if (Buffer.from(s, "utf8").equals(b)) return executable ? { text: s, executable: true } : s;
  }
  return executable ? { base64: b.toString("base64"), executable: true } : { base64: b.toString("base64") };
}

/** A file map as a sandbox writes it: text as text (UTF-8), binary content as its bytes. */
export function sandboxFiles(m: FileMap | undefined): Record<string, string | Buffer> {
  const out: Record<string, string | Buffer> = {};
  for (const [p, c] of Object.entries(m ?? {})) out[p] = typeof c === "string" ? c : "text" in c ? c.text : fileBytes(c);
  return out;
}

/** The paths of a map's executable files. */
export function executablePaths(m: FileMap | undefined): string[] {
  return Object.entries(m ?? {}).flatMap(([p, c]) => (isExecutable(c) ? [p] : []));
}

/** The text files of a map (binary ones left out), for code that reads them as text. */
export function textFiles(m: FileMap | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, c] of Object.entries(m ?? {})) {
    const t = fileText(c);
    if (t !== null) out[p] = t;
  }
  return out;
}
