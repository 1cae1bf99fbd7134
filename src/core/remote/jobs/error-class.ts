/**
 * The class of a rollout that ended in error, for the runner's error counter; undefined for
 * one that did not (completed, truncated, cancelled). The machinery's failures (sandbox,
 * policy server) are told apart from the task's, as the scheduler retries only those.
 */
export function rolloutErrorClass(end: { status: string; infra?: boolean; reason?: string }): string | undefined {
  if (end.status === "timeout") return "timeout";
  if (end.status !== "error") return undefined;
  if (!end.infra) return "task_error";
  const reason = end.reason ?? "";
  if (/sandbox|container|docker|bwrap|unshare/i.test(reason)) return "infra_sandbox";
  if (/policy|model server|openai|ECONNREFUSED|ECONNRESET|HTTP 5\d\d/i.test(reason)) return "infra_policy";
  return "infra_other";
}

export const ERROR_CLASSES = ["timeout", "task_error", "infra_sandbox", "infra_policy", "infra_other"] as const;
