import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { formatPath, type Problem } from "../model/problem";
import { didYouMean } from "../environment/suggest";
import { expectedValue } from "../reward/answer-path";
import { inferComparator } from "../reward/comparators/auto";
import { parseMeasure } from "../reward/comparators/units";
import { COMPARATOR_NAMES } from "../schema/comparators";
import { FieldSpec } from "../schema/verifier";
import { taskLocator } from "./locate";

/** Comparators that read a figure's money, percent or text and so would ignore (or misread) a physical unit. */
const UNIT_BLIND = new Set(["money", "percent", "text", "legal-text", "exact", "date", "entities"]);

/** The report fields a task's `target.schema` declares, or undefined when it declares none. */
function reportFields(task: LoadedTask): string[] | undefined {
  const schema = (task.target as { schema?: { properties?: unknown } } | undefined)?.schema;
  const props = schema && typeof schema === "object" ? schema.properties : undefined;
  return props && typeof props === "object" ? Object.keys(props) : undefined;
}

/**
 * What a rollout would trip on in a task's grading, positioned at the task's field:
 * `target.grading.<field>` naming a comparator that does not exist or options the comparator
 * does not take; a grading field the report schema does not have; a gold with a physical
 * unit ("148.5 MW") given to a comparator that ignores units (money, percent, text…).
 */
export function gradingProblems(env: Environment): Problem[] {
  const problems: Problem[] = [];
  const manifestFields = new Map<string, string>();
  for (const r of env.manifest.reward)
    if (r.type === "fields") for (const [f, spec] of Object.entries(r.fields)) manifestFields.set(f, spec.comparator);
  for (const task of env.tasks) {
    const at = taskLocator(task);
    const on = (path: PropertyKey[], message: string, severity: Problem["severity"] = "error") =>
      problems.push({ file: task.source.file, ...at(path), path: formatPath(path, `tasks[${task.source.index}]`), message, severity });
    const grading = (task.target as { grading?: unknown } | undefined)?.grading;
    const specs = grading && typeof grading === "object" && !Array.isArray(grading) ? (grading as Record<string, unknown>) : {};
    if (grading !== undefined && grading !== specs) on(["target", "grading"], "expected a mapping of report fields to comparator specs");
    const fields = reportFields(task);
    for (const [field, spec] of Object.entries(specs)) {
      const here = ["target", "grading", field];
      const name = (spec as { comparator?: unknown } | null)?.comparator;
      if (typeof name === "string" && !(COMPARATOR_NAMES as readonly string[]).includes(name)) {
        const near = didYouMean(name, COMPARATOR_NAMES);
        on(
          [...here, "comparator"],
          `no comparator '${name}'${near ? ` (did you mean '${near}'?)` : ""}; comparators: ${COMPARATOR_NAMES.join(", ")}`,
        );
      } else {
        const r = FieldSpec.partial().safeParse(spec);
        if (!r.success)
          for (const i of r.error.issues) on([...here, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))], i.message);
      }
      const top = field.split(".")[0] ?? field;
      if (fields && !fields.includes(top)) {
        const near = didYouMean(top, fields);
        on(
          here,
          `target.schema has no field '${top}' to grade${near ? ` (did you mean '${near}'?)` : ""}: the report can never hold it`,
          "warning",
        );
      }
    }
    for (const [field, manifestComparator] of manifestFields) {
      const gold = expectedValue(task, field);
      const measure = parseMeasure(gold);
      if (!measure) continue;
      const given = (specs[field] as { comparator?: unknown } | undefined)?.comparator;
      const chosen =
        typeof given === "string" && given !== "auto" ? given : manifestComparator === "auto" ? inferComparator(gold) : manifestComparator;
      if (UNIT_BLIND.has(chosen))
        on(
          ["target", field],
          `the gold ${JSON.stringify(gold)} has a unit (${measure.kind}) that the '${chosen}' comparator does not read: '148,500 kW' would not match and a wrong unit would; use quantity (or auto, or number)`,
          "warning",
        );
    }
  }
  return problems;
}
