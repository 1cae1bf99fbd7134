import type { z } from "zod";
import { didYouMean } from "./suggest";

/** What a zod issue means, said for a person, plus where to point and an optional fix. */
export interface Explained {
  /** Path of the node to point at (may extend the issue path to a key). */
  path: PropertyKey[];
  /** Point at the key of the last path segment rather than its value. */
  atKey: boolean;
  message: string;
  fix?: { kind: "rename-field"; from: string; to: string } | { kind: "insert-field"; field: string; value: unknown };
}

function article(type: string): string {
  switch (type) {
    case "object":
      return "an object";
    case "array":
      return "a list";
    case "string":
      return "a string";
    case "number":
    case "int":
      return "a number";
    case "boolean":
      return "true or false";
    case "record":
      return "an object";
    case "null":
      return "null";
    case "undefined":
      return "nothing";
    default:
      return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function getAt(root: unknown, path: ReadonlyArray<PropertyKey>): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return { found: false, value: undefined };
    const rec = cur as Record<PropertyKey, unknown>;
    if (!(seg in rec)) return { found: false, value: undefined };
    cur = rec[seg];
  }
  return { found: true, value: cur };
}

/** Known keys of the object schema at a path, for "did you mean" on unknown fields. */
export type KeysAt = (path: ReadonlyArray<PropertyKey>) => string[];

type IssueOf<C extends z.core.$ZodIssue["code"]> = Extract<z.core.$ZodIssue, { code: C }>;

export function explainIssue(issue: z.core.$ZodIssue, data: unknown, keysAt: KeysAt): Explained[] {
  const path = issue.path as PropertyKey[];
  switch (issue.code) {
    case "invalid_type":
      return explainInvalidType(issue, path, data);
    case "unrecognized_keys":
      return explainUnknownKeys(issue, path, keysAt);
    case "invalid_value":
      return explainInvalidValue(issue, path, data);
    case "invalid_union":
      return explainInvalidUnion(issue, path, data, keysAt);
    case "too_small":
      return [{ path, atKey: false, message: tooSmallMessage(issue) }];
    case "too_big":
      return [{ path, atKey: false, message: tooBigMessage(issue) }];
    case "invalid_format":
      if (issue.format === "starts_with")
        return [{ path, atKey: false, message: `must start with '${(issue as { prefix?: string }).prefix ?? ""}'` }];
      return [{ path, atKey: false, message: issue.message.startsWith("Invalid") ? `invalid ${issue.format}` : issue.message }];
    default:
      return [{ path, atKey: false, message: issue.message }];
  }
}

function explainInvalidType(issue: IssueOf<"invalid_type">, path: PropertyKey[], data: unknown): Explained[] {
  const at = getAt(data, path);
  if (!at.found || at.value === undefined) {
    const field = String(path[path.length - 1] ?? "");
    return [
      {
        path: path.slice(0, -1),
        atKey: false,
        message: `missing required field '${field}' (${article(issue.expected)})`,
        fix: { kind: "insert-field", field, value: placeholderFor(issue.expected) },
      },
    ];
  }
  // 1e999 in JSON parses to Infinity, which is a number to typeof and not to the schema.
  if (typeof at.value === "number" && !Number.isFinite(at.value))
    return [{ path, atKey: false, message: `expected a finite number, got ${at.value} (a number too large for a double?)` }];
  // A schema's own message for this field (a size given as a bare number) says what to write instead.
  const hint = issue.message && !/^Invalid input/.test(issue.message) ? `: ${issue.message}` : "";
  return [{ path, atKey: false, message: `expected ${article(issue.expected)}, got ${article(kindOf(at.value))}${hint}` }];
}

function explainUnknownKeys(issue: IssueOf<"unrecognized_keys">, path: PropertyKey[], keysAt: KeysAt): Explained[] {
  const known = keysAt(path);
  return issue.keys.map((key) => {
    const guess = didYouMean(key, known);
    return {
      path: [...path, key],
      atKey: true,
      message: guess ? `unknown field '${key}' (did you mean '${guess}'?)` : `unknown field '${key}'`,
      ...(guess ? { fix: { kind: "rename-field" as const, from: key, to: guess } } : {}),
    };
  });
}

function explainInvalidValue(issue: IssueOf<"invalid_value">, path: PropertyKey[], data: unknown): Explained[] {
  const at = getAt(data, path);
  const allowed = issue.values.map((v) => String(v));
  const got = at.found ? JSON.stringify(at.value) : "nothing";
  const guess = typeof at.value === "string" ? didYouMean(at.value, allowed) : undefined;
  return [
    {
      path,
      atKey: false,
      message: `expected one of ${allowed.join(", ")}, got ${got}${guess ? ` (did you mean '${guess}'?)` : ""}`,
    },
  ];
}

function explainInvalidUnion(issue: IssueOf<"invalid_union">, path: PropertyKey[], data: unknown, keysAt: KeysAt): Explained[] {
  const note = (issue as { note?: string }).note;
  const options = (issue as { options?: unknown[] }).options;
  if (note === "No matching discriminator" && options) return explainDiscriminator(path, data, options);
  // A plain union (a tool given by name or as an object): explain the branch that
  // accepts the value's kind, so the message names the field that is really wrong.
  const branches = (issue.errors ?? []) as z.core.$ZodIssue[][];
  const fitting = branches.filter((b) => !b.some((i) => i.code === "invalid_type" && i.path.length === 0));
  // Several branches take the value's kind (two object forms): the one it comes closest to, the
  // first on a tie (a file given as { hex } is explained as the { base64 } form, declared first).
  const closest = fitting.reduce<z.core.$ZodIssue[] | undefined>((best, b) => (!best || b.length < best.length ? b : best), undefined);
  if (closest) {
    return closest.flatMap((i) => explainIssue({ ...i, path: [...path, ...i.path] } as z.core.$ZodIssue, data, keysAt));
  }
  const kind = kindOf(getAt(data, path).value);
  return [{ path, atKey: false, message: `${article(kind)} is not allowed here` }];
}

/** A discriminated union whose discriminator is missing or names no option. */
function explainDiscriminator(path: PropertyKey[], data: unknown, options: unknown[]): Explained[] {
  const at = getAt(data, path);
  if (!at.found) {
    return [{ path: path.slice(0, -1), atKey: false, message: `missing '${String(path[path.length - 1])}': one of ${options.join(", ")}` }];
  }
  const guess = typeof at.value === "string" ? didYouMean(at.value, options.map(String)) : undefined;
  return [
    {
      path,
      atKey: false,
      message: `unknown ${String(path[path.length - 1])} ${JSON.stringify(at.value)}: expected one of ${options.join(", ")}${guess ? ` (did you mean '${guess}'?)` : ""}`,
    },
  ];
}

function tooSmallMessage(issue: IssueOf<"too_small">): string {
  const min = Number(issue.minimum);
  if (issue.origin === "array") return `needs at least ${min} item${min === 1 ? "" : "s"}`;
  if (issue.origin === "string") return min === 1 ? "must not be empty" : `must be at least ${min} characters`;
  return `must be ${issue.inclusive ? "at least" : "more than"} ${min}`;
}

function tooBigMessage(issue: IssueOf<"too_big">): string {
  const max = Number(issue.maximum);
  if (issue.origin === "array") return `allows at most ${max} items`;
  if (issue.origin === "string") return `must be at most ${max} characters`;
  return `must be ${issue.inclusive ? "at most" : "less than"} ${max}`;
}

function placeholderFor(expected: string): unknown {
  switch (expected) {
    case "string":
      return "";
    case "number":
      return 0;
    case "array":
      return [];
    case "object":
      return {};
    case "boolean":
      return false;
    default:
      return null;
  }
}
