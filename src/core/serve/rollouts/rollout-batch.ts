import { servedRollout } from "../served-rollout";
import type { LoadedTask } from "../../model/environment";
import { OpenAIPolicy } from "../../policy/openai";
import type { Policy } from "../../policy/types";
import { Limiter } from "../../rollout/limiter";
import type { RolloutResult } from "../../rollout/rollout-types";
import { runRollout } from "../../rollout/run-rollout";
import type { TrajectoryEvent } from "../../schema/trajectory";
import type { ServedEnvironment } from "../serve-context";
import { ServeError } from "../session-types";
import { groupAdvantages } from "./advantage";
import type { RolloutsRequest } from "./request";
import { type RolloutLine, rolloutLine, scoredReward } from "./rollout-line";

/** One group of a batch: a task and how many rollouts of it are normalised together. */
export interface BatchGroup {
  id: string;
  task: LoadedTask;
  size: number;
}

/** The groups a request asks for; an unknown task id is a ServeError naming its place (`tasks[2]`). */
export function planGroups(req: RolloutsRequest, served: ServedEnvironment, batchId: string): BatchGroup[] {
  const byId = new Map(served.tasks.map((t) => [t.id, t]));
  let tasks: LoadedTask[];
  if (req.tasks) {
    tasks = req.tasks.map((id, i) => {
      const t = byId.get(id);
      if (!t) throw new ServeError("not_found", `tasks[${i}]: no task '${id}' in ${served.name}`, `tasks[${i}]`);
      return t;
    });
  } else {
    const n = served.tasks.length;
    if (n === 0) throw new ServeError("not_found", `${served.name} has no tasks`, "count");
    const from = req.seed ?? 0;
    tasks = Array.from({ length: req.count ?? 0 }, (_, i) => served.tasks[(from + i) % n] as LoadedTask);
  }
  return tasks.map((task, i) => ({ id: `${batchId}-g${i}`, task, size: req.group_size }));
}

/** The last line of a batch: what it did and spent, and how busy it kept the model server. */
export interface BatchSummary {
  type: "summary";
  batch_id: string;
  environment: string;
  policy_version: string | number | null;
  rollouts: number;
  /** Rollouts never started (the client went away, the server shut down). */
  not_started: number;
  statuses: Record<string, number>;
  cancelled: boolean;
  wall_seconds: number;
  rollouts_per_second: number;
  /** Fraction of the wall time at least one policy request of this batch was in flight. */
  policy_utilisation: number;
  sandbox_seconds: number;
  policy_tokens: { prompt: number; completion: number };
  judge: { calls: number; prompt_tokens: number; completion_tokens: number };
  reward_hash: string;
}

export interface BatchOptions {
  served: ServedEnvironment;
  req: RolloutsRequest;
  groups: BatchGroup[];
  batchId: string;
  /** Aborted when the client goes away or the server shuts down: running rollouts end cancelled, their sandboxes released. */
  signal: AbortSignal;
  /** One line a finished rollout (sent when its group is complete). */
  emit(line: RolloutLine): void;
  /** The policy of one rollout (default: the request's OpenAI-compatible server, token capture on). */
  makePolicy?(index: number): Policy;
}

interface Finished {
  result: RolloutResult;
  events: TrajectoryEvent[];
}

/**
 * A batch's rollouts on the engine (runRollout, the served environment's warm pool), `concurrency`
 * at a time, each group's lines sent once its last rollout ends (the advantage needs the whole
 * group). Resolves once every started rollout has ended, cancelled or not, with the summary.
 */
export async function runBatch(o: BatchOptions): Promise<BatchSummary> {
  const { req, groups, served } = o;
  const items = groups.flatMap((g) => Array.from({ length: g.size }, (_, k) => ({ group: g, k })));
  const policyLimit = new Limiter(req.concurrency);
  const finished = new Map<string, Array<Finished | undefined>>();
  const all: RolloutResult[] = [];
  const version = req.policy_version ?? null;
  const makePolicy = o.makePolicy ?? ((index: number) => openAIPolicy(req, index));
  const t0 = performance.now();

  const flush = (g: BatchGroup, members: Array<Finished | undefined>, complete: boolean) => {
    const done = members.flatMap((m, k) => (m ? [{ m, k }] : []));
    const { stats, advantages } = groupAdvantages(done.map(({ m }) => ({ scored: scoredReward(m.result) })));
    for (const [j, { m, k }] of done.entries()) {
      o.emit(
        rolloutLine({
          result: m.result,
          events: m.events,
          environment: served.name,
          groupId: g.id,
          groupIndex: k,
          policyVersion: version,
          // A group cut short (cancelled) has no statistics worth training on.
          advantage: complete ? (advantages[j] ?? null) : null,
          group: { ...stats, size: g.size },
        }),
      );
    }
  };

  const play = async (index: number, group: BatchGroup, k: number): Promise<void> => {
    // Ids and files from the served environment's run folder, as every served episode's (never repeating within a server).
    const events: TrajectoryEvent[] = [];
    const result = await runRollout(
      servedRollout(served, group.task, {
        policy: makePolicy(index),
        ...(req.seed !== undefined ? { seed: req.seed + index } : {}),
        signal: o.signal,
        hooks: { onEvent: (e) => events.push(e) },
        meter: { policyCall: (fn, signal) => policyLimit.run(fn, signal) },
      }),
    );
    all.push(result);
    const members = finished.get(group.id) ?? Array.from({ length: group.size }, () => undefined);
    members[k] = { result, events };
    finished.set(group.id, members);
    if (members.every((m) => m !== undefined)) {
      finished.delete(group.id);
      flush(group, members, true);
    }
  };

  let next = 0;
  const worker = async () => {
    while (!o.signal.aborted) {
      const index = next++;
      const item = items[index];
      if (!item) return;
      await play(index, item.group, item.k);
    }
  };
  await Promise.all(Array.from({ length: Math.min(req.concurrency, items.length) }, worker));
  // Groups cut short by a cancellation: their finished rollouts are still sent, without an advantage.
  for (const g of groups) {
    const members = finished.get(g.id);
    if (members) flush(g, members, false);
  }
  return summaryOf(o, all, items.length, performance.now() - t0, policyLimit.busyTime());
}

function summaryOf(o: BatchOptions, all: RolloutResult[], planned: number, wallMs: number, policyBusyMs: number): BatchSummary {
  const statuses: Record<string, number> = {};
  for (const r of all) {
    const s = r.infra ? "infra_error" : r.status;
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  const sum = (f: (r: RolloutResult) => number | undefined) => all.reduce((s, r) => s + (f(r) ?? 0), 0);
  return {
    type: "summary",
    batch_id: o.batchId,
    environment: o.served.name,
    policy_version: o.req.policy_version ?? null,
    rollouts: all.length,
    not_started: planned - all.length,
    statuses,
    cancelled: o.signal.aborted,
    wall_seconds: wallMs / 1000,
    rollouts_per_second: wallMs > 0 ? all.length / (wallMs / 1000) : 0,
    policy_utilisation: wallMs > 0 ? Math.min(1, policyBusyMs / wallMs) : 0,
    sandbox_seconds: sum((r) => r.sandboxSeconds),
    policy_tokens: { prompt: sum((r) => r.usage.prompt_tokens), completion: sum((r) => r.usage.completion_tokens) },
    judge: {
      calls: sum((r) => r.judge?.calls),
      prompt_tokens: sum((r) => r.judge?.prompt_tokens),
      completion_tokens: sum((r) => r.judge?.completion_tokens),
    },
    reward_hash: o.served.rewardHash,
  };
}

/** The request's model server as the policy of rollout `index`: token capture on, the sampling seed advanced per rollout. */
function openAIPolicy(req: RolloutsRequest, index: number): Policy {
  const m = req.model;
  const s = req.sampling;
  return new OpenAIPolicy({
    baseURL: m.base_url,
    model: m.model,
    ...(m.api_key ? { apiKey: m.api_key } : {}),
    ...(m.timeout_ms ? { timeoutMs: m.timeout_ms } : {}),
    retries: m.retries,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.top_p !== undefined ? { topP: s.top_p } : {}),
    ...(s.max_tokens !== undefined ? { maxTokens: s.max_tokens } : {}),
    ...(s.seed !== undefined ? { seed: s.seed + index } : {}),
    capture: true,
  });
}
