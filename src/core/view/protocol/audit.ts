import { z } from "zod";
import { AuditReport } from "../../schema/audit";

export { RunAudit, TaskVerdict } from "./run-audit";

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

export const AuditMethods = {
  audit: { params: z.object({ file: z.string() }), result: AuditView },
} as const;
