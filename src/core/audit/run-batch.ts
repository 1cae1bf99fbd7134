import { readFileSync } from "node:fs";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { OraclePolicy } from "../policy/oracle";
import type { Policy } from "../policy/types";
import type { Limiter } from "../rollout/limiter";
import { runEnvironment } from "../rollout/run-environment";
import { parseTrajectory } from "../runs/trajectory-reader";
import type { SandboxProvider } from "../model/sandbox";

/**
 * One rollout the audit wants: a task (the real one, or a variant of it with another
 * reference solution) played by a policy. Variants carry their own ids so that one run of
 * the ordinary engine holds all of them, each in its own trajectory.
 */
export interface AuditItem {
  /** Unique within the batch; becomes the variant task's id and the rollout's file name. */
  id: string;
  task: LoadedTask;
  /** Defaults to the oracle playing task.solution (so a variant's solution is what gets played). */
  policy?: () => Policy;
}

/** How a batch's rollout ended, as the audit needs it. */
export interface AuditOutcome {
  id: string;
  /** Null: not judged (an infra error that survived the retries, a cancelled rollout). */
  reward: number | null;
  status: string;
  infra: boolean;
  reason?: string;
  file: string;
  /** Score of each reward component, by name, from the trajectory's reward event. */
  components: Array<{ name: string; score: number }>;
  /** Why a component could not be graded here (a judge with no endpoint): the reward is then not judged. */
  skipped?: string;
}

export interface BatchContext {
  env: Environment;
  provider: SandboxProvider;
  runsDir: string;
  slots: Limiter;
  concurrency: number;
  signal?: AbortSignal;
  /** Rollouts per item (the flakiness runs); 1 otherwise. */
  k?: number;
  seed?: number;
}

function componentsOf(file: string): { components: AuditOutcome["components"]; skipped?: string } {
  try {
    const reward = parseTrajectory(readFileSync(file, "utf8")).events.find((e) => e.type === "reward");
    if (reward?.type !== "reward") return { components: [] };
    const skipped = reward.components.flatMap((c) => (c.skipped ? [`${c.name}: ${c.skipped}`] : []));
    return {
      components: reward.components.map((c) => ({ name: c.name, score: c.score })),
      ...(skipped.length > 0 ? { skipped: skipped.join("; ") } : {}),
    };
  } catch {
    return { components: [] };
  }
}

/**
 * Runs every item through runEnvironment, the same engine as `rlenv run` and `validate
 * --run`: one run folder per batch, named by `label`. A rollout that ended with an
 * infrastructure error is returned with reward null and infra true: the audit counts it
 * as not judged, never as a pass or a finding.
 */
export async function runBatch(ctx: BatchContext, label: string, items: AuditItem[]): Promise<Map<string, AuditOutcome[]>> {
  const out = new Map<string, AuditOutcome[]>();
  if (items.length === 0) return out;
  const byId = new Map(items.map((i) => [i.id, i]));
  if (byId.size !== items.length) throw new Error(`audit ${label}: duplicate item ids`);
  const tasks = items.map((i) => ({ ...i.task, id: i.id }));
  const env: Environment = { ...ctx.env, tasks };
  const res = await runEnvironment({
    env,
    config: {
      policy: { kind: "oracle" },
      concurrency: ctx.concurrency,
      sandbox: ctx.provider.backend,
      k: ctx.k ?? 1,
      ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
    },
    runsDir: ctx.runsDir,
    runId: `${label}`,
    sandboxProvider: ctx.provider,
    slots: ctx.slots,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    policyFactory: ({ task }) => {
      const item = byId.get(task.id);
      if (!item) throw new Error(`audit: no item for ${task.id}`);
      return item.policy ? item.policy() : new OraclePolicy(task.solution);
    },
  });
  for (const r of res.rollouts) {
    // A verifier that failed on what the policy left (status error, not infra) gave nothing: 0.
    const { components, skipped } = componentsOf(r.file);
    // A component that could not be graded here (a judge with no endpoint) leaves the reward unjudged too.
    const judged = !r.infra && r.status !== "cancelled" && !skipped;
    const o: AuditOutcome = {
      id: r.task,
      reward: judged ? (r.reward ?? 0) : null,
      status: r.status,
      infra: r.infra,
      ...(r.reason ? { reason: r.reason } : {}),
      file: r.file,
      components,
      ...(skipped ? { skipped } : {}),
    };
    const list = out.get(r.task) ?? [];
    list.push(o);
    out.set(r.task, list);
  }
  for (const list of out.values()) list.sort((a, b) => (a.file < b.file ? -1 : 1));
  return out;
}
