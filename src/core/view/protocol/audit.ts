import { z } from "zod";
import { AuditReport } from "../../schema/audit";

/** Messages of the audit report app (`rlenv view <audit folder or audit.json>`). */

export const AuditView = z.object({
  /** The audit.json shown, relative to the served root. */
  file: z.string(),
  report: AuditReport,
  /**
   * Each trajectory the report names → its path relative to the served root, or null when it is
   * not there (a report moved without its runs/ folder). Pairs, not an object: paths never become keys.
   */
  links: z.array(z.tuple([z.string(), z.string().nullable()])),
});
export type AuditView = z.infer<typeof AuditView>;

/** One task's audit verdict, as the run dashboard shows it beside the task's pass@k. */
export const TaskVerdict = z.object({
  task: z.string(),
  verdict: z.enum(["passed", "failed", "not-judged"]),
  problems: z.array(z.string()),
  mutation_score: z.number().nullable(),
  findings: z.number().int().nonnegative(),
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
  matched: z.enum(["content", "name"]).optional(),
});
export type RunAudit = z.infer<typeof RunAudit>;

export const AuditMethods = {
  audit: { params: z.object({ file: z.string() }), result: AuditView },
} as const;
