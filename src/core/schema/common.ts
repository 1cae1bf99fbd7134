import { z } from "zod";

/** A path relative to the environment folder; escaping it is rejected by the loader. */
export const RelativePath = z.string().min(1).describe("A path relative to the environment folder");

/** Identifiers used in file names and URLs: tasks, tools, environments. */
export const Slug = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, "use letters, digits, '.', '_', '-' or '/', starting with a letter or digit")
  .max(200);

/** A JSON Schema object as given to the policy for tool parameters. */
export const JsonSchemaObject = z
  .object({ type: z.literal("object") })
  .catchall(z.unknown())
  .describe("JSON Schema of an object (type: object, properties, required)");

/** Set on a file the sandbox must get with its executable bits (mode 755), as a task folder's `chmod +x` script has them. */
const Executable = z.boolean().optional().describe("Written with mode 755 (an executable script or program); else 644");

/** A binary file's bytes, base64-encoded (standard alphabet, padded), where text would not keep them. */
export const BinaryContent = z.strictObject({
  base64: z
    .string()
    .regex(
      /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
      "not base64 (standard alphabet, padded with '=', no line breaks)",
    )
    .describe("The file's bytes, base64-encoded"),
  executable: Executable,
});
export type BinaryContent = z.infer<typeof BinaryContent>;

/** A text file given as an object: the form that can say it is executable. */
export const TextContent = z.strictObject({
  text: z.string().describe("The file's text, written as UTF-8"),
  executable: Executable,
});
export type TextContent = z.infer<typeof TextContent>;

/**
 * One file's content: text (written as UTF-8), { base64 } for bytes that are not UTF-8 text, or
 * { text } — either object with `executable: true` for a file that must keep its executable bits.
 */
export const FileContent = z.union([z.string(), BinaryContent, TextContent]);
export type FileContent = z.infer<typeof FileContent>;

/** File contents keyed by relative path, as seeds, hidden tests or a reference solution. */
export const FileMap = z
  .record(z.string(), FileContent)
  .describe(
    'File contents keyed by path relative to the workdir: text, { "base64": "…" } for a binary file, and "executable": true in either object form ({ "text": "…" } for text) for mode 755',
  );
export type FileMap = z.infer<typeof FileMap>;

export const Domain = z.enum(["code", "scene3d", "document", "custom"]);
export type Domain = z.infer<typeof Domain>;
