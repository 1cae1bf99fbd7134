import { config, describe, type ZodMiniType } from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * Imported for its effect by each schema file written with zod's functional build
 * ("zod/mini"): English messages, as classic zod sets them up on import.
 *
 * zod/mini makes the same schemas, checks and types as `zod` without the dozens of methods
 * the classic build attaches to every schema it makes. The schemas the viewer's webview
 * parses host replies with are written with it, so its first bundle carries neither classic
 * zod nor its cost of building each schema, and the host parses with the very same schemas.
 * Each file imports `* as z from "zod/mini"` itself: a namespace used only by property
 * lets the bundler drop what is not used (one re-exported as a value would keep all of zod).
 */
config(en());

/** `schema` with a description, as classic zod's `.describe` gives it (the JSON Schemas and the docs read it). */
export function described<T extends ZodMiniType>(schema: T, description: string): T {
  return schema.check(describe(description)) as T;
}
