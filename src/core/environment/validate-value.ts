import type { z } from "zod";
import { explainIssue } from "./issues";
import { nulByteProblems } from "./nul-bytes";
import { formatPath, type Problem, type Span } from "../model/problem";
import { objectKeysAt } from "./schema-walk";

export interface SpanSource {
  spanOf(path: ReadonlyArray<PropertyKey>, atKey?: boolean): Span;
}

/**
 * Validate a parsed value against a schema and turn every issue into a positioned
 * problem. `displayPrefix` is prepended to field paths (e.g. `tasks[13]`).
 */
export function validateValue<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  positions: SpanSource,
  displayPrefix = "",
): { data?: z.infer<S>; problems: Problem[] } {
  const nul = nulByteProblems(value, file, positions, displayPrefix);
  const res = schema.safeParse(value);
  if (res.success) return nul.length > 0 ? { problems: nul } : { data: res.data, problems: [] };
  const problems: Problem[] = [...nul];
  const seen = new Set<string>();
  for (const issue of res.error.issues) {
    for (const ex of explainIssue(issue, value, (p) => objectKeysAt(schema, value, p))) {
      const span = positions.spanOf(ex.path, ex.atKey);
      const p: Problem = {
        file,
        ...span,
        path: formatPath(ex.path, displayPrefix),
        message: ex.message,
        severity: "error",
        ...(ex.fix ? { fix: ex.fix } : {}),
      };
      const key = `${p.line}:${p.column}:${p.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(p);
      }
    }
  }
  return { problems };
}
