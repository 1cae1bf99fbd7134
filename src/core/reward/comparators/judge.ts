import { show } from "../answer-path";
import { asText } from "../normalize";
import { judgeEndpoint, judgeRubric } from "../judge-client";
import type { Comparator } from "./registry";

/** A field graded by the judge model against the field's rubric (the gold value is given to the judge as reference). */
export const judgeComparator: Comparator = async (actual, expected, spec, ctx) => {
  if (actual === undefined || actual === null) return { score: 0, passed: false, reason: "field missing from the answer" };
  try {
    judgeEndpoint();
  } catch (e) {
    // No judge configured: the field cannot be graded here. Recorded as skipped, never a pass.
    const why = `skipped: ${(e as Error).message}`;
    return { score: 0, passed: false, reason: `${why}; a skipped check is not counted as passed`, details: { skipped: why } };
  }
  const rubric = spec.rubric ?? [`The answer matches the reference: ${show(expected, 1000)}`];
  const r = await judgeRubric({
    question: `${ctx.task.prompt}\n\n(Field: ${ctx.field}; reference: ${show(expected, 1000)})`,
    answer: asText(actual),
    rubric,
    signal: ctx.signal,
    timeoutMs: ctx.timeoutMs,
  });
  return {
    score: r.score,
    passed: r.score >= 1,
    reason: r.items.map((i) => `${i.passed ? "✓" : "✗"} ${i.item}: ${i.reason}`).join("\n"),
    details: { items: r.items, raw: r.raw, model: r.model },
  };
};
