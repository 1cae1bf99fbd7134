import type { z } from "zod";
import type { Problem } from "../model/problem";
import { didYouMean } from "../util/suggest";
import { fieldAt, TASK_TOML_FIELDS } from "./task-toml-fields";
import { tomlPathSpan } from "./toml-position";

/**
 * task.toml's schema issues as problems a person reads: each at the line of the field it is
 * about (a missing field at its table's header), with its dotted path, a message that says what
 * was expected and what was found, and a did-you-mean for an unknown field close to a known
 * one. Unknown fields are warnings (Harbor ignores them); every other issue is an error.
 */

type Issue = z.core.$ZodIssue;

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object" || !(seg in (cur as object))) return { found: false, value: undefined };
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return { found: true, value: cur };
}

const EXPECTED: Record<string, string> = {
  object: "a table",
  record: "a table",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
};

/** `"a", "b" or "c"` */
const oneOf = (values: readonly unknown[]) => {
  const q = values.map((v) => JSON.stringify(v));
  return q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q[q.length - 1]}` : (q[0] ?? "");
};

/** What an issue means, said for a person (without the field, which the problem's path names). */
function describe(issue: Issue, value: unknown): string {
  // TOML's inf and nan have no JSON spelling.
  const got = `got ${typeof value === "number" && !Number.isFinite(value) ? String(value).replace("Infinity", "inf").toLowerCase() : JSON.stringify(value)}`;
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined)
        return issue.message.startsWith("Invalid input") ? `is required (${EXPECTED[issue.expected] ?? issue.expected})` : issue.message;
      if (typeof value === "number" && !Number.isFinite(value)) return `must be a finite number, ${got}`;
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, ${got}`;
    case "invalid_value":
      return `must be ${oneOf(issue.values)}, ${got}`;
    case "too_small":
      if (issue.origin === "number" || issue.origin === "int")
        return Number(issue.minimum) === 0
          ? `must be a ${issue.inclusive ? "non-negative" : "positive"} number, ${got}`
          : `must be at least ${issue.minimum}, ${got}`;
      return issue.message;
    case "invalid_union": {
      // A union whose own message was written for the field (min_reward, an env value) says it best.
      if (!issue.message.startsWith("Invalid input")) return issue.message;
      const branches = (issue.errors ?? []) as Issue[][];
      const expected = branches.flatMap((b) =>
        b.filter((i) => i.code === "invalid_type" && i.path.length === 0).map((i) => (i as { expected: string }).expected),
      );
      const fitting = branches.find((b) => !b.some((i) => i.code === "invalid_type" && i.path.length === 0));
      if (fitting?.[0]) return describe(fitting[0], value);
      return `must be ${[...new Set(expected.map((e) => EXPECTED[e] ?? e))].join(" or ")}, ${got}`;
    }
    default:
      return issue.message;
  }
}

/** `step 'name'` for a path into `[[steps]]` (`step 2` while the entry has no usable name), else undefined. */
function stepLabel(raw: Record<string, unknown>, path: readonly PropertyKey[]): string | undefined {
  if (path[0] !== "steps" || typeof path[1] !== "number") return undefined;
  const name = valueAt(raw, [...path.slice(0, 2), "name"]).value;
  return typeof name === "string" && name.trim() !== "" ? `step '${name}'` : `step ${path[1] + 1}`;
}

/** The dotted path a problem names: array indices left out (a step's message names its step). */
const dotted = (path: readonly PropertyKey[]) => path.filter((p) => typeof p === "string").join(".");

/** The problems one schema issue of task.toml gives. */
export function issueProblems(file: string, text: string, raw: Record<string, unknown>, issue: Issue): Problem[] {
  const path = issue.path as PropertyKey[];
  const label = stepLabel(raw, path);
  if (issue.code === "unrecognized_keys") {
    const table = dotted(path);
    const known = (TASK_TOML_FIELDS[table] ?? []).map((f) => f.key);
    return issue.keys.map((key) => {
      const guess = didYouMean(key, known);
      const where = table === "steps" ? "a Harbor step" : table ? `Harbor's task.toml ([${table}])` : "Harbor's task.toml";
      const message = `unknown field '${key}' for ${where}: ignored${guess ? ` (did you mean '${guess}'?)` : ""}`;
      return at(file, text, [...path, key], [...path, key], label ? `${label}: ${message}` : message, "warning");
    });
  }
  const { value } = valueAt(raw, path);
  const message = describe(issue, value);
  // A missing field is placed at the table that lacks it.
  const place = value === undefined ? path.slice(0, -1) : path;
  const key = path[path.length - 1];
  // Inside a step the message names the field when it does not already ("timeout_sec must be …").
  const named = typeof key === "string" && /^(must|is|not) /.test(message) ? `${key} ${message}` : message;
  return [at(file, text, path, place, label ? `${label}: ${named}` : message, "error")];
}

function at(
  file: string,
  text: string,
  path: readonly PropertyKey[],
  place: readonly PropertyKey[],
  message: string,
  severity: Problem["severity"],
): Problem {
  return { file, ...tomlPathSpan(text, place), path: dotted(path), message, severity };
}

/**
 * Warnings for fields this tool reads but does not honour (the schema's `x-rlenv-unsupported`),
 * wherever they are set to something (a `gpus = 0` or an empty list asks for nothing). The
 * fields of such a table are not warned about again.
 */
export function unsupportedProblems(file: string, text: string, raw: Record<string, unknown>, skip: ReadonlySet<string>): Problem[] {
  const out: Problem[] = [];
  const walk = (value: unknown, path: PropertyKey[]) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, [...path, i]);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, v] of Object.entries(value)) {
      const field = fieldAt([...path, key]);
      if (!field || skip.has([...path, key].join("."))) continue;
      if (field.unsupported && !isEmpty(v)) {
        const label = stepLabel(raw, path);
        const message = `read but not supported here: ${field.unsupported}`;
        out.push(at(file, text, [...path, key], [...path, key], label ? `${label}: ${message}` : message, "warning"));
      } else if (field.type === "table" || field.type === "array of tables") walk(v, [...path, key]);
    }
  };
  walk(raw, []);
  return out;
}

const isEmpty = (v: unknown) =>
  v === 0 ||
  v === false ||
  v === "" ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && v !== null && Object.keys(v).length === 0);
