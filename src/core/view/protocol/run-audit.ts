import * as z from "zod/mini";
import "../../schema/zod-mini";

/**
 * The audit verdicts the run dashboard shows. Apart from the audit app's messages (audit.ts, built on
 * the audit report's classic zod schema) and written with zod/mini, so the dashboard's bundle parses
 * them without carrying classic zod.
 */

/** One task's audit verdict, as the run dashboard shows it beside the task's pass@k. */
export const TaskVerdict = z.object({
  task: z.string(),
  verdict: z.enum(["passed", "failed", "not-judged"]),
  problems: z.array(z.string()),
  mutation_score: z.nullable(z.number()),
  findings: z.number().check(z.int(), z.nonnegative()),
  flaky: z.boolean(),
});
export type TaskVerdict = z.infer<typeof TaskVerdict>;

/** The audit of a run's environment the dashboard found (see docs: where the dashboard looks). */
export const RunAudit = z.object({
  /** Where the audit.json was found, as shown to the user (absolute: it may sit outside the run folder). */
  file: z.string(),
  created: z.string(),
  ok: z.boolean(),
  tasks: z.array(TaskVerdict),
  /** How it was known to be this run's: the environment's content hash agreed, or (a side recorded none) its name only. */
  matched: z.optional(z.enum(["content", "name"])),
});
export type RunAudit = z.infer<typeof RunAudit>;
