import type { LoadedTask } from "../../model/environment";
import type { VerifierConfig } from "../../schema/verifier";
import { expectedValue, getPath } from "../answer-path";
import { inferComparator } from "../comparators/auto";
import type { GradedField, GraderField } from "../verifier-entry";

type FieldsConfig = Extract<VerifierConfig, { type: "fields" }>;

/** The document comparators rlenv registers wrapped in the citation check (reward/comparators/document.ts). */
const CITED = new Set(["money", "percent", "quantity", "legal-text", "date", "entities"]);

/** Each field of the answer, a judge's (by the manifest or the task's target.grading) marked. */
export function fieldsGraded(v: FieldsConfig, task: LoadedTask): GradedField[] {
  const target = task.target as { grading?: Record<string, { comparator?: string }> } | undefined;
  return Object.entries(v.fields).map(([p, spec]) => ({
    path: p,
    judge: spec.comparator === "judge" || target?.grading?.[p]?.comparator === "judge",
  }));
}

/**
 * The fields as grader.py compares them: `auto` resolved here by rlenv's own rule (the task's
 * target.grading, else the gold value's form, figures and text read by the document
 * comparators), the gold value written in.
 */
export function fieldsForGrader(v: FieldsConfig, task: LoadedTask): { mode: "mean" | "all"; fields: Record<string, GraderField> } {
  const fields: Record<string, GraderField> = {};
  for (const [field, spec] of Object.entries(v.fields)) {
    const expected = expectedValue(task, field);
    let name: string = spec.comparator;
    let merged: Record<string, unknown> = { ...spec };
    let cited = CITED.has(name);
    if (name === "auto") {
      const grading = getPath(getPath(task.target, "grading"), field) as Record<string, unknown> | undefined;
      const chosen =
        typeof grading?.comparator === "string" && grading.comparator !== "auto" ? grading.comparator : inferComparator(expected);
      // auto reads figures and text the document domain's way, and checks citations whatever it picked.
      name = chosen === "number" ? "quantity" : chosen === "text" ? "legal-text" : chosen;
      merged = { ...spec, ...(grading ?? {}) };
      cited = true;
    }
    const f: GraderField = { comparator: name, weight: spec.weight, expected };
    for (const k of ["rel_tol", "abs_tol", "rounding"] as const)
      if (merged[k] !== undefined) (f as unknown as Record<string, unknown>)[k] = merged[k];
    if (merged.cite === true && cited) f.cite = true;
    fields[field] = f;
  }
  return { mode: v.mode === "all" ? "all" : "mean", fields };
}
