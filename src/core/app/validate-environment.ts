import type { Environment } from "../model/environment";
import { Limiter } from "../rollout/limiter";
import { type PolicyFactory, type RunEnvironmentResult, type RunProgress, runEnvironment } from "../rollout/run-environment";
import type { SandboxProvider } from "../model/sandbox";
import type { RunConfig } from "../schema/run";
import { judgeTask, type TaskVerdict } from "./verdict";

export interface ValidateEnvironmentOptions {
  env: Environment;
  /** Where the oracle's and the nop's run folders go. */
  runsDir: string;
  /** Only these task ids (all when absent). */
  tasks?: string[];
  /** Rollouts at once, oracle and nop together. */
  concurrency: number;
  /** Backend named in each run's config; the provider below runs them when given. */
  sandbox: RunConfig["sandbox"];
  /** A provider shared by both runs (kept open); otherwise each run makes its own. */
  sandboxProvider?: SandboxProvider;
  signal?: AbortSignal;
  onProgress?: (policy: "oracle" | "nop", e: RunProgress) => void;
  /** Makes the oracle's and the nop's policy where the default (config.policy) will not do. */
  policyFactory?: PolicyFactory;
}

export interface EnvironmentValidation {
  tasks: TaskVerdict[];
  /** Every task passed (tasks the oracle could not be graded on count when nop failed them). */
  ok: boolean;
  oracle: RunEnvironmentResult;
  nop: RunEnvironmentResult;
  min: number;
  max: number;
}

/**
 * Validation by rollouts: every task's oracle must reach validation.oracle.min and its nop must
 * stay at or under validation.nop.max. Oracle and nop run together through one set of slots, so
 * nop rollouts fill the slots the oracle's last ones leave.
 */
export async function validateEnvironment(opts: ValidateEnvironmentOptions): Promise<EnvironmentValidation> {
  const { env } = opts;
  const slots = new Limiter(opts.concurrency);
  const config = { concurrency: opts.concurrency, sandbox: opts.sandbox, ...(opts.tasks ? { tasks: opts.tasks } : {}) };
  const run = (kind: "oracle" | "nop") =>
    runEnvironment({
      env,
      config: { ...config, policy: { kind } },
      runsDir: opts.runsDir,
      slots,
      ...(opts.sandboxProvider ? { sandboxProvider: opts.sandboxProvider } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.policyFactory ? { policyFactory: opts.policyFactory } : {}),
      ...(opts.onProgress ? { onProgress: (e: RunProgress) => opts.onProgress?.(kind, e) } : {}),
    });
  // Settled, so a failing run does not leave the other one running behind the error.
  const [o, n] = await Promise.allSettled([run("oracle"), run("nop")]);
  if (o.status === "rejected") throw o.reason;
  if (n.status === "rejected") throw n.reason;
  const [oracle, nop] = [o.value, n.value];
  const { min } = env.manifest.validation.oracle;
  const { max } = env.manifest.validation.nop;
  const tasks = oracle.rollouts.map((r) =>
    judgeTask(
      r.task,
      r,
      nop.rollouts.find((x) => x.task === r.task),
      min,
      max,
    ),
  );
  return { tasks, ok: tasks.every((t) => t.ok), oracle, nop, min, max };
}
