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

/** File contents keyed by relative path, as seeds, hidden tests or a reference solution. */
export const FileMap = z.record(z.string(), z.string()).describe("File contents keyed by path relative to the workdir");

export const Domain = z.enum(["code", "scene3d", "document", "custom"]);
export type Domain = z.infer<typeof Domain>;
