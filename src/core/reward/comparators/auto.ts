import { getPath } from "../answer-path";
import { judgeEndpoint } from "../judge-client";
import { withCitationCheck } from "./cite-check";
import { parseDate } from "./date";
import { findQuantities } from "./quantity";
import { parseMeasure } from "./units";
import type { Comparator, FieldSpecConfig } from "./registry";

type ComparatorName = FieldSpecConfig["comparator"];

/** The comparator a gold value's form calls for: a list → entities, a date → date, a figure with a physical unit → quantity, a figure → number, else text. */
export function inferComparator(expected: unknown): ComparatorName {
  if (Array.isArray(expected)) return "entities";
  if (typeof expected === "number") return "number";
  if (typeof expected !== "string") return "json";
  const s = expected.trim();
  const d = s.length <= 40 ? parseDate(s) : null;
  if (d?.day !== undefined) return "date";
  if (s.length <= 40 && parseMeasure(s)) return "quantity";
  const q = findQuantities(s);
  if (q.length === 1 && s.length <= 40) return q[0]!.kind === "percent" ? "percent" : q[0]!.kind === "money" ? "money" : "number";
  return "text";
}

/**
 * `auto`: the task decides. `target.grading.<field>` may name the comparator (and its
 * tolerances, rubric, cite) for this task — a numeric question among free-text ones —
 * otherwise the gold value's form picks one. A judge field with no judge endpoint is
 * skipped with the reason recorded, and scores 0: a skipped check is never a pass.
 */
export function autoComparator(resolve: (name: string) => Comparator | undefined): Comparator {
  return async (actual, expected, spec, ctx) => {
    const grading = getPath(getPath(ctx.task.target, "grading"), ctx.field) as Partial<FieldSpecConfig> | undefined;
    const name = grading?.comparator && grading.comparator !== "auto" ? grading.comparator : inferComparator(expected);
    const merged: FieldSpecConfig = { ...spec, ...(grading ?? {}), comparator: name };
    if (name === "judge") {
      try {
        judgeEndpoint();
      } catch (e) {
        const why = `skipped: ${(e as Error).message}`;
        return {
          score: 0,
          passed: false,
          reason: `${why}; a skipped check is not counted as passed`,
          details: { skipped: why, comparator: name },
        };
      }
    }
    const cmp = resolve(name);
    if (!cmp) throw new Error(`auto: no comparator '${name}' is registered`);
    const r = await withCitationCheck(cmp)(actual, expected, merged, ctx);
    return {
      ...r,
      details: {
        comparator: name,
        ...(r.details && typeof r.details === "object" ? r.details : r.details === undefined ? {} : { inner: r.details }),
      },
    };
  };
}
