import { VerifierInfraError } from "../../model/errors";
import type { BuiltinVerifier } from "../verifier-entry";
import { fieldsForGrader, fieldsGraded } from "./fields-harbor";
import type { VerifierConfig } from "../../schema/verifier";
import { asStructured, expectedValue, getPath } from "../answer-path";
import { findComparator, registeredComparators } from "../comparators/registry";

type FieldsConfig = Extract<VerifierConfig, { type: "fields" }>;

interface FieldOutcome {
  field: string;
  comparator: string;
  weight: number;
  score: number;
  passed: boolean;
  reason?: string;
  error?: string;
  details?: unknown;
  /** The gold value, kept in the reward (written after the episode, never shown to the agent) so the viewer can show where it stands. */
  expected?: unknown;
}

/**
 * A JSON answer compared field by field, each with its comparator; the score is the
 * weighted mean (or all-or-nothing). A comparator that throws fails only its field.
 */
export const fieldsVerifier: BuiltinVerifier<FieldsConfig> = {
  type: "fields",
  gradedFields: fieldsGraded,
  harbor: { kind: "answer", fields: fieldsForGrader },
  async verify(config, ctx) {
    const answer = asStructured(ctx.answer);
    const outcomes: FieldOutcome[] = [];
    for (const [field, spec] of Object.entries(config.fields)) {
      const base = { field, comparator: spec.comparator, weight: spec.weight };
      const cmp = findComparator(spec.comparator);
      if (!cmp) {
        outcomes.push({
          ...base,
          score: 0,
          passed: false,
          error: `no comparator '${spec.comparator}' is registered (have: ${registeredComparators().join(", ")})`,
        });
        continue;
      }
      const expected = expectedValue(ctx.task, field);
      if (expected === undefined) {
        outcomes.push({ ...base, score: 0, passed: false, error: `task '${ctx.task.id}' has no target for field '${field}'` });
        continue;
      }
      try {
        const r = await cmp(getPath(answer, field), expected, spec, {
          field,
          answer,
          env: ctx.env,
          task: ctx.task,
          events: ctx.events,
          signal: ctx.signal,
          timeoutMs: ctx.timeoutMs,
        });
        const score = Math.min(1, Math.max(0, r.score));
        outcomes.push({
          ...base,
          score,
          passed: r.passed ?? score >= 1,
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.details !== undefined ? { details: r.details } : {}),
          expected,
        });
      } catch (e) {
        // The judge's server down grades nothing: the rollout's infra error, not this field's 0.
        if (ctx.signal.aborted || e instanceof VerifierInfraError) throw e;
        outcomes.push({ ...base, score: 0, passed: false, error: (e as Error).message });
      }
    }
    const totalWeight = outcomes.reduce((s, o) => s + o.weight, 0);
    const mean = totalWeight === 0 ? 0 : outcomes.reduce((s, o) => s + o.weight * o.score, 0) / totalWeight;
    const allPassed = outcomes.length > 0 && outcomes.every((o) => o.passed);
    const score = config.mode === "all" ? (allPassed ? 1 : 0) : mean;
    const nPassed = outcomes.filter((o) => o.passed).length;
    // A field a comparator could not grade (a judge with no endpoint) makes the whole
    // component skipped-in-part: recorded as such, scored 0, never counted as passed.
    const skipped = outcomes.flatMap((o) => {
      const why = (o.details as { skipped?: unknown } | undefined)?.skipped;
      return typeof why === "string" ? [`${o.field}: ${why}`] : [];
    });
    return {
      score,
      passed: allPassed,
      reason: `${nPassed}/${outcomes.length} fields correct`,
      details: { fields: outcomes },
      ...(skipped.length > 0 ? { skipped: skipped.join("; ") } : {}),
    };
  },
};
