import { z } from "zod";

/**
 * Argument schemas of the code tools. The policy's JSON is untrusted: each schema words
 * its problem for the model, naming the argument (the first problem is what the tool
 * returns). A null counts as absent, as policies send either for an argument they skip,
 * and whole numbers may come as strings ("3"), as some policies quote every value.
 */

const nullAsAbsent = (v: unknown) => (v === null ? undefined : v);
/** The argument's name: the last key of the path. */
const nameOf = (iss: { path?: PropertyKey[] }) => String(iss.path?.at(-1) ?? "arguments");

function plainString(allowEmpty: boolean) {
  const s = z.string({
    error: (iss) =>
      iss.input === undefined
        ? `missing argument '${nameOf(iss)}' (a string)`
        : `argument '${nameOf(iss)}' must be a string, got ${typeof iss.input}`,
  });
  return allowEmpty ? s : s.refine((v) => v !== "", { error: (iss) => `argument '${nameOf(iss)}' must not be empty` });
}

/** A required string; empty only with allowEmpty. */
export function stringArg(opts: { allowEmpty?: boolean } = {}) {
  return z.preprocess(nullAsAbsent, plainString(opts.allowEmpty ?? false));
}

/** An optional string, not empty when given. */
export function optionalStringArg() {
  return z.preprocess(nullAsAbsent, plainString(false).optional());
}

/** An optional whole number of at least `min`. */
export function intArg(min: number) {
  const fromText = (v: unknown) => (typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : nullAsAbsent(v));
  const n = z
    .int({ error: (iss) => `argument '${nameOf(iss)}' must be an integer` })
    .min(min, { error: (iss) => `argument '${nameOf(iss)}' must be at least ${min}, got ${String(iss.input)}` });
  return z.preprocess(fromText, n.optional());
}

/** An optional positive number (a number written as text counts). */
export function positiveNumberArg() {
  const fromText = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? Number(v) : nullAsAbsent(v));
  const message = (iss: { path?: PropertyKey[] }) => `argument '${nameOf(iss)}' must be a positive number`;
  return z.preprocess(
    fromText,
    z
      .number({ error: message })
      .refine((n) => n > 0, { error: message })
      .optional(),
  );
}

/** An optional true or false. */
export function boolArg() {
  return z.preprocess(nullAsAbsent, z.boolean({ error: (iss) => `argument '${nameOf(iss)}' must be true or false` }).optional());
}

/**
 * The arguments object. The model is told no other key is allowed, but one it adds anyway
 * is ignored rather than refused, as the tools always did.
 */
export function codeArgs<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.object(shape).meta({ additionalProperties: false });
}
