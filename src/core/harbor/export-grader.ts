import type { LoadedTask } from "../environment/load-tasks";
import { expectedValue, getPath } from "../reward/answer-path";
import { inferComparator } from "../reward/comparators/auto";
import type { VerifierConfig } from "../schema/verifier";

/** The comparators grader.py has (harbor/python/grader.py); any other field scores 0 there, with a warning at export. */
export const PY_COMPARATORS = new Set([
  "exact",
  "exact-normalized",
  "text",
  "legal-text",
  "number",
  "json",
  "money",
  "percent",
  "quantity",
]);

/** The document comparators rlenv registers wrapped in the citation check (reward/comparators/document.ts). */
const CITED = new Set(["money", "percent", "quantity", "legal-text", "date", "entities"]);

export interface GraderField {
  comparator: string;
  weight: number;
  expected: unknown;
  rel_tol?: number;
  abs_tol?: number;
  rounding?: "gold" | "none";
  cite?: boolean;
  normalize?: string;
}

/** What grader.py reads: the fields to compare, each resolved for this task, and the pages a citation may point at. */
export interface GraderSpec {
  mode: "mean" | "all";
  fields: Record<string, GraderField>;
  pages?: Record<string, Record<string, string>>;
}

/** A document's pages, for the citation check: what the environment's corpus holds. */
export interface ExportDocument {
  name: string;
  pages: ReadonlyArray<{ number: number; text: string }>;
}

/**
 * One answer-graded verifier (fields, exact, numeric) of one task as grader.py's spec: `auto`
 * resolved here by rlenv's own rule (the task's target.grading, else the gold value's form,
 * figures and text read by the document comparators), the gold value written in, and, when a
 * field needs its citation checked, the pages of the documents the task names. Null for a
 * verifier type grader.py does not grade; `unsupported` names fields it cannot.
 */
export function graderSpec(
  v: VerifierConfig,
  task: LoadedTask,
  documents: readonly ExportDocument[] = [],
): { spec: GraderSpec; unsupported: string[] } | null {
  const fields: Record<string, GraderField> = {};
  let mode: GraderSpec["mode"] = "mean";
  if (v.type === "exact") {
    fields[v.field ?? ""] = { comparator: "exact-normalized", weight: 1, expected: expectedValue(task, v.field), normalize: v.normalize };
  } else if (v.type === "numeric") {
    fields[v.field ?? ""] = {
      comparator: "number",
      weight: 1,
      expected: expectedValue(task, v.field),
      rel_tol: v.rel_tol,
      abs_tol: v.abs_tol,
    };
  } else if (v.type === "fields") {
    if (v.mode === "all") mode = "all";
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
  } else return null;
  const unsupported = Object.entries(fields).flatMap(([field, f]) =>
    PY_COMPARATORS.has(f.comparator) ? [] : [`${field || "(answer)"}: ${f.comparator}`],
  );
  const spec: GraderSpec = { mode, fields };
  if (Object.values(fields).some((f) => f.cite)) spec.pages = pagesFor(task, documents);
  return { spec, unsupported };
}

/** The pages of the documents a task names (its prompt, its target's evidence): where its citations can be checked. */
function pagesFor(task: LoadedTask, documents: readonly ExportDocument[]): Record<string, Record<string, string>> {
  const evidence = JSON.stringify(getPath(task.target, "evidence") ?? "");
  const out: Record<string, Record<string, string>> = {};
  for (const d of documents) {
    const base = d.name.split("/").pop() ?? d.name;
    if (!task.prompt.includes(base) && !evidence.includes(base)) continue;
    out[d.name] = Object.fromEntries(d.pages.map((p) => [String(p.number), p.text]));
  }
  return out;
}
