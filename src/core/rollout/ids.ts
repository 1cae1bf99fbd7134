import { createHash, randomBytes } from "node:crypto";

/** A file-name-safe rollout id: the task id made safe (with a hash when anything was replaced, so ids stay unique) and the sample. */
export function rolloutId(taskId: string, sample: number): string {
  const safe = taskId.replace(/[^A-Za-z0-9._-]/g, "_");
  const suffix = safe === taskId ? "" : `~${createHash("sha256").update(taskId).digest("hex").slice(0, 6)}`;
  return `${safe}${suffix}.s${sample}`;
}

/** Run ids sort by time: 20261202-193012-<env>-<4 hex>. */
export function newRunId(envName: string, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${stamp}-${envName.replace(/[^A-Za-z0-9._-]/g, "_")}-${randomBytes(2).toString("hex")}`;
}
