import { z } from "zod";
import { FieldSpec } from "../../schema/verifier";

/** A page that holds the evidence for an answer. */
export const EvidencePage = z.strictObject({
  document: z.string().min(1),
  page: z.number().int().positive().describe("1-based page number"),
});

/**
 * The hidden target of a document task. The gold value of each report field sits at
 * `target.<field>` (or `target.fields.<field>`), where the `fields` verifier reads it;
 * `grading.<field>` lets one task pick its comparator (a numeric question among free-text
 * ones, with `comparator: auto` in the manifest); `schema` is the JSON Schema that
 * `submit_report` enforces; `evidence` names the pages that hold the answer.
 */
export const DocumentTarget = z.looseObject({
  schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of the report; defaults to {answer, citations}"),
  grading: z.record(z.string(), FieldSpec.partial()).optional().describe("Per-task comparator specs for comparator: auto"),
  evidence: z.array(EvidencePage).optional().describe("Where the answer is found"),
});
export type DocumentTarget = z.infer<typeof DocumentTarget>;

/** The report asked for when a task gives no schema: an answer and the pages that support it. */
export const DEFAULT_REPORT_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    answer: { type: "string", description: 'The answer, with units (e.g. "$1,577 million", "30.8%")' },
    citations: {
      type: "array",
      description: "Pages that support the answer",
      items: {
        type: "object",
        properties: { document: { type: "string" }, page: { type: "integer", minimum: 1 } },
        required: ["document", "page"],
      },
    },
  },
  required: ["answer", "citations"],
};

/** The task's target, checked; a readable error naming the task when it does not fit. */
export function readTarget(taskId: string, target: unknown): DocumentTarget {
  const r = DocumentTarget.safeParse(target ?? {});
  if (r.success) return r.data;
  const where = r.error.issues.map((i) => `target.${i.path.join(".")}: ${i.message}`).join("; ");
  throw new Error(`task ${taskId}: ${where}`);
}
