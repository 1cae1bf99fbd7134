import type { Environment } from "../model/environment";
import { type AuditFolderOptions, auditIntoFolder } from "../audit/audit-folder";
import type { AuditReport } from "../schema/audit";

export interface AuditEnvironmentOptions extends AuditFolderOptions {
  env: Environment;
}

/**
 * The reward audit of one environment (mutants, probes, backend parity) into a folder: audit.json,
 * audit.md and the trajectories, the same engine and report `rlenv audit` writes.
 */
export function auditEnvironment(opts: AuditEnvironmentOptions): Promise<{ report: AuditReport; json: string; md: string }> {
  const { env, ...folder } = opts;
  return auditIntoFolder(env, folder);
}
