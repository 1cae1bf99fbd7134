import { z } from "zod";
import type { Citation } from "../../../schema/trajectory";
import type { Environment } from "../../../model/environment";
import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import type { ToolDefinition } from "../../../model/domain";
import { DEFAULT_REPORT_SCHEMA, readTarget } from "../target";
import { corpusOf } from "./context";
import { findDocument } from "../corpus";

/** The report schema shown to the policy: the tasks' common schema, or the default one. */
export function reportSchemaOf(env: Environment): Record<string, unknown> {
  const schemas = new Set<string>();
  let first: Record<string, unknown> | undefined;
  for (const t of env.tasks) {
    const s = (t.target as { schema?: Record<string, unknown> } | undefined)?.schema ?? DEFAULT_REPORT_SCHEMA;
    schemas.add(JSON.stringify(s));
    first ??= s;
  }
  // Tasks with different schemas: any object is offered, and each task's own schema is enforced on submit.
  if (schemas.size > 1) return { type: "object", description: "The report, in the form the task asks for" };
  return first ?? DEFAULT_REPORT_SCHEMA;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `- ${i.path.length ? i.path.join(".") : "(report)"}: ${i.message}`).join("\n");
}

export function submitReportTool(env: Environment): ToolDefinition {
  return defineTool({
    name: "submit_report",
    description:
      "Submit your final report (ends the task). It must match the report schema; if it does not, you are told what to fix and may submit again.",
    // The report's form is data (the tasks' schema), not code: it is shown as written and checked per task below.
    args: z.looseObject({}),
    parameters: reportSchemaOf(env),
    errors: "document",
    async run(args, ctx) {
      const target = readTarget(ctx.task.id, ctx.task.target);
      const schema = target.schema ?? DEFAULT_REPORT_SCHEMA;
      let validator: z.ZodType;
      try {
        validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      } catch (e) {
        throw new Error(`task ${ctx.task.id}: target.schema is not a usable JSON Schema (${(e as Error).message})`);
      }
      const r = validator.safeParse(args);
      if (!r.success) throw new ToolError(`the report does not match the schema; fix these and submit again:\n${describeIssues(r.error)}`);
      const corpus = await corpusOf(ctx);
      const citations: Citation[] = [];
      const cited = (args as { citations?: unknown }).citations;
      for (const c of Array.isArray(cited) ? cited : []) {
        if (!c || typeof c !== "object") continue;
        const { document, page } = c as { document?: unknown; page?: unknown };
        if (typeof document !== "string" || typeof page !== "number") continue;
        const doc = findDocument(corpus, document);
        const text = doc?.pages.find((p) => p.number === page)?.text;
        citations.push({ document: doc?.name ?? document, page, start: 0, end: text?.length ?? 0 });
      }
      return { output: "report received", submit: { answer: r.data }, artifacts: citations.length ? { citations } : undefined };
    },
  });
}
