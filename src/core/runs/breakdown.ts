import { componentFailed, failureKey } from "./failure";
import type { RunSummary } from "../schema/run";
import type { RewardComponent } from "../schema/trajectory";

/** What the breakdown needs of one rollout. */
export interface BreakdownInput {
  task: string;
  status: string;
  reason?: string | undefined;
  reward: number | null;
  /** Ended on an infrastructure failure: the machinery's, not a reason the agent fell short. */
  infra?: boolean | undefined;
  components?: readonly RewardComponent[] | undefined;
}

type Breakdown = Required<Pick<RunSummary, "components" | "fields" | "failures">> & Pick<RunSummary, "not_run">;

/** How many tasks a failure row names: enough to find an example, not a second per-task table. */
const TASKS_PER_FAILURE = 5;

interface FieldRow {
  field?: unknown;
  score?: unknown;
  passed?: unknown;
}

/**
 * Where a run's reward went: the mean of each reward component and of each field a
 * `fields` verifier graded, and the reasons rollouts fell short with how often each came
 * up (most frequent first). A rollout that ended without a reward counts under its status
 * and reason; skipped components are left out of the means and counted apart (`not_run`,
 * only when some were): a check that did not run scores 0 in the total without being the
 * agent's failure, and a run whose mean it pulls down must say why (no judge endpoint, say).
 */
export function rewardBreakdown(outcomes: readonly BreakdownInput[]): Breakdown {
  const comps = new Map<string, { type: string; n: number; sum: number; passed: number }>();
  const fields = new Map<string, { component: string; field: string; n: number; sum: number; passed: number }>();
  const failures = new Map<string, { count: number; tasks: Set<string> }>();
  const notRun = new Map<string, { count: number; tasks: Set<string> }>();
  const count = (into: typeof failures, key: string, task: string) => {
    const f = into.get(key) ?? { count: 0, tasks: new Set<string>() };
    f.count++;
    if (f.tasks.size < TASKS_PER_FAILURE) f.tasks.add(task);
    into.set(key, f);
  };
  const fail = (key: string, task: string) => count(failures, key, task);
  for (const o of outcomes) {
    if (o.status === "cancelled" || o.status === "interrupted" || o.infra) continue;
    if (o.reward === null) {
      fail(`${o.status}: ${(o.reason ?? "no reason recorded").split("\n")[0]!.slice(0, 240)}`, o.task);
      continue;
    }
    for (const c of o.components ?? []) {
      if (c.skipped) {
        // A fields component names the field in its reason ("answer: skipped: …"); the component is named once.
        const why = c.skipped.split("\n")[0]!.slice(0, 240);
        count(notRun, why.startsWith(`${c.name}: `) ? why : `${c.name}: ${why}`, o.task);
        continue;
      }
      const row = comps.get(c.name) ?? { type: c.type, n: 0, sum: 0, passed: 0 };
      row.n++;
      row.sum += c.score;
      if (!componentFailed(c)) row.passed++;
      comps.set(c.name, row);
      const key = failureKey(c);
      if (key) fail(key, o.task);
      const list = (c.details as { fields?: unknown } | undefined)?.fields;
      if (!Array.isArray(list)) continue;
      for (const f of list as FieldRow[]) {
        if (typeof f?.field !== "string" || typeof f.score !== "number") continue;
        const id = `${c.name}\u0000${f.field}`;
        const fr = fields.get(id) ?? { component: c.name, field: f.field, n: 0, sum: 0, passed: 0 };
        fr.n++;
        fr.sum += f.score;
        if (f.passed === true) fr.passed++;
        fields.set(id, fr);
      }
    }
  }
  const rows = (m: typeof failures) =>
    [...m.entries()]
      .map(([reason, f]) => ({ reason, count: f.count, tasks: [...f.tasks] }))
      .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
  return {
    components: [...comps.entries()].map(([name, r]) => ({ name, type: r.type, n: r.n, mean: r.sum / r.n, passed: r.passed })),
    fields: [...fields.values()].map((r) => ({ component: r.component, field: r.field, n: r.n, mean: r.sum / r.n, passed: r.passed })),
    failures: rows(failures),
    ...(notRun.size > 0 ? { not_run: rows(notRun) } : {}),
  };
}
