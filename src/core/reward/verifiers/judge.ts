import type { Verifier } from "../../model/domain";
import { NO_GRADED_FIELDS, type BuiltinVerifier } from "../verifier-entry";
import type { VerifierConfig } from "../../schema/verifier";
import { getPath } from "../answer-path";
import { judgeEndpoint, judgeRubric } from "../judge-client";
import { asText } from "../normalize";

type JudgeConfig = Extract<VerifierConfig, { type: "judge" }>;

/** The answer to grade: the submitted answer (or a field of it), else the agent's last words. */
function answerText(ctx: Parameters<Verifier["verify"]>[1], field: string | undefined): string | null {
  const a = getPath(ctx.answer, field);
  if (a !== undefined && a !== null) return asText(a);
  for (let i = ctx.events.length - 1; i >= 0; i--) {
    const e = ctx.events[i];
    if (e?.type === "message" && e.role === "assistant" && typeof e.content === "string" && e.content.trim()) return e.content;
  }
  return null;
}

/** A rubric scored item by item by an OpenAI-compatible judge model; its reasons and raw reply are recorded. */
export const judgeVerifier: BuiltinVerifier<JudgeConfig> = {
  type: "judge",
  gradedFields: NO_GRADED_FIELDS,
  // A judge model is not in Harbor's container.
  harbor: { kind: "none" },
  async verify(config, ctx) {
    const answer = answerText(ctx, config.field);
    if (answer === null) return { score: 0, passed: false, reason: "nothing to judge: no answer was submitted" };
    try {
      judgeEndpoint(config.base_url, config.model);
    } catch (e) {
      // No judge configured is no verdict on the answer: skipped (never passed), as a judge field is.
      const why = `skipped: ${(e as Error).message}`;
      return { score: 0, passed: false, reason: `${why}; a skipped check is not counted as passed`, skipped: why };
    }
    const r = await judgeRubric({
      baseURL: config.base_url,
      model: config.model,
      question: ctx.task.prompt,
      answer,
      rubric: config.rubric,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
    });
    return {
      score: r.score,
      passed: r.score >= 1,
      reason: r.items.map((i) => `${i.passed ? "✓" : "✗"} ${i.item}${i.reason ? `: ${i.reason}` : ""}`).join("\n"),
      details: { model: r.model, items: r.items, raw: r.raw },
    };
  },
};
