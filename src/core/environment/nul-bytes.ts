import type { SpanSource } from "./validate-value";
import { formatPath, type Problem } from "../model/problem";

/** Values walked at most: the loader has already refused nesting deeper than MAX_NESTING. */
const MAX_VISITS = 1_000_000;

/**
 * Every string (value or key) of `value` holding a NUL byte, as a positioned problem: a NUL
 * ends a C string, so a reward command or an image name holding one runs or names something
 * else than the file says (a command cut short scores 0; an image name with one crashed the
 * engine), and no text field of an environment has a use for one.
 */
export function nulByteProblems(value: unknown, file: string, positions: SpanSource, displayPrefix = ""): Problem[] {
  const problems: Problem[] = [];
  const stack: Array<{ v: unknown; path: PropertyKey[] }> = [{ v: value, path: [] }];
  let visits = 0;
  const report = (path: PropertyKey[], atKey: boolean, what: string) =>
    problems.push({
      file,
      ...positions.spanOf(path, atKey),
      path: formatPath(path, displayPrefix),
      message: `${what} holds a NUL byte (\\u0000): a command or a name would be cut short at it; remove it`,
      severity: "error",
    });
  while (stack.length > 0 && visits++ < MAX_VISITS) {
    const { v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\u0000")) report(path, false, "this text");
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) stack.push({ v: x, path: [...path, i] });
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes("\u0000")) report([...path, k], true, "this field name");
        stack.push({ v: x, path: [...path, k] });
      }
    }
  }
  return problems;
}
