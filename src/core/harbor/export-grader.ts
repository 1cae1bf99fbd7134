import type { LoadedTask } from "../model/environment";
import { getPath } from "../reward/answer-path";
import type { GraderField } from "../reward/verifier-entry";
import { verifierEntry } from "../reward/verifier-table";
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

export type { GraderField };

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
 * One answer-graded verifier (fields, exact, numeric: those whose Harbor grader is of kind
 * "answer") of one task as grader.py's spec: its fields as the verifier resolves them (the gold
 * value written in, `auto` resolved by rlenv's own rule), and, when a field needs its citation
 * checked, the pages of the documents the task names. Null for a verifier type grader.py does
 * not grade; `unsupported` names fields it cannot.
 */
export function graderSpec(
  v: VerifierConfig,
  task: LoadedTask,
  documents: readonly ExportDocument[] = [],
): { spec: GraderSpec; unsupported: string[] } | null {
  const grader = verifierEntry(v).harbor;
  if (grader.kind !== "answer") return null;
  const { mode, fields } = grader.fields(v, task);
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
