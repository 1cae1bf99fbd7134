import { type BuiltinVerifier, oneAnswerField } from "../verifier-entry";
import type { VerifierConfig } from "../../schema/verifier";
import { expectedValue, getPath, show } from "../answer-path";
import { parseNumber, withinTolerance } from "../normalize";

type NumericConfig = Extract<VerifierConfig, { type: "numeric" }>;

/** The submitted number is within rel_tol or abs_tol of the target. */
export const numericVerifier: BuiltinVerifier<NumericConfig> = {
  type: "numeric",
  ...oneAnswerField<NumericConfig>((config) => ({ comparator: "number", rel_tol: config.rel_tol, abs_tol: config.abs_tol })),
  async verify(config, ctx) {
    const expected = parseNumber(expectedValue(ctx.task, config.field));
    if (expected === null)
      throw new Error(`task '${ctx.task.id}' has no numeric target${config.field ? ` for field '${config.field}'` : ""}`);
    const raw = getPath(ctx.answer, config.field);
    const actual = parseNumber(raw);
    if (actual === null)
      return { score: 0, passed: false, reason: raw === undefined ? "nothing was submitted" : `${show(raw)} is not a number` };
    const ok = withinTolerance(actual, expected, config.rel_tol, config.abs_tol);
    return {
      score: ok ? 1 : 0,
      passed: ok,
      reason: ok ? `${actual} ≈ ${expected}` : `expected ${expected}, got ${actual}`,
      details: { expected, actual },
    };
  },
};
