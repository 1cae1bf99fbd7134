import { type BuiltinVerifier, oneAnswerField } from "../verifier-entry";
import type { VerifierConfig } from "../../schema/verifier";
import { expectedValue, getPath, show } from "../answer-path";
import { asText, normalizeText } from "../normalize";

type ExactConfig = Extract<VerifierConfig, { type: "exact" }>;

/** The submitted answer (or one field of it) equals the task's target after normalisation. */
export const exactVerifier: BuiltinVerifier<ExactConfig> = {
  type: "exact",
  ...oneAnswerField<ExactConfig>((config) => ({ comparator: "exact-normalized", normalize: config.normalize })),
  async verify(config, ctx) {
    const expected = expectedValue(ctx.task, config.field);
    if (expected === undefined) throw new Error(`task '${ctx.task.id}' has no target${config.field ? ` for field '${config.field}'` : ""}`);
    const actual = getPath(ctx.answer, config.field);
    if (actual === undefined || actual === null)
      return { score: 0, passed: false, reason: config.field ? `no '${config.field}' in the answer` : "nothing was submitted" };
    const ok = normalizeText(asText(actual), config.normalize) === normalizeText(asText(expected), config.normalize);
    return { score: ok ? 1 : 0, passed: ok, reason: ok ? "matches" : `expected ${show(expected)}, got ${show(actual)}` };
  },
};
