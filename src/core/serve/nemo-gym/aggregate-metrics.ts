import { NemoHttpError } from "./http-errors";

/**
 * `/aggregate_metrics` as NeMo Gym computes it (reward_profile.compute_aggregate_metrics with the
 * default hooks): every numeric field of a verify response (booleans as 0/1) and of its
 * `response.usage` becomes a column; per task (`_ng_task_index`) and over all rollouts, each
 * column gets mean/max/min/median/std (pandas' sample std; NaN left out, and 0 for a column
 * without gaps when no std is defined at all, as a one-rollout group has); `key_metrics` are
 * the `mean/*` entries. Keys are `<stat>/<column>` in pandas' stacking order.
 */

export const TASK_INDEX = "_ng_task_index";
export const ROLLOUT_INDEX = "_ng_rollout_index";

export interface AggregateMetrics {
  group_level_metrics: Array<Record<string, unknown>>;
  agent_metrics: Record<string, unknown>;
  key_metrics: Record<string, unknown>;
}

type Row = Map<string, number>;

const numeric = (v: unknown): number | undefined =>
  typeof v === "boolean" ? Number(v) : typeof v === "number" && Number.isFinite(v) ? v : undefined;

function numericFields(o: Record<string, unknown>, into: Row, skip: ReadonlySet<string> = new Set()): void {
  for (const [k, v] of Object.entries(o)) {
    const n = numeric(v);
    if (n !== undefined && !skip.has(k)) into.set(k, n);
  }
}

const usageOf = (vr: Record<string, unknown>): Record<string, unknown> => {
  const response = vr.response;
  const usage = typeof response === "object" && response !== null ? (response as Record<string, unknown>).usage : undefined;
  return typeof usage === "object" && usage !== null ? (usage as Record<string, unknown>) : {};
};

function describe(rows: Row[], columns: string[]): Record<string, number> {
  const cols = columns.map((c) => rows.map((r) => r.get(c)).filter((v): v is number => v !== undefined));
  const mean = cols.map((v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : Number.NaN));
  const median = cols.map((v) => {
    if (!v.length) return Number.NaN;
    const s = [...v].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  });
  let std = cols.map((v, i) => {
    if (v.length < 2) return Number.NaN;
    const m = mean[i] as number;
    return Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / (v.length - 1));
  });
  // pandas: "Std is more interpretable using 0 rather than NaN for no std", for columns without gaps.
  if (std.every(Number.isNaN)) std = cols.map((v) => (v.length === rows.length ? 0 : Number.NaN));
  const stats: Array<[string, number[]]> = [
    ["mean", mean],
    ["max", cols.map((v) => (v.length ? Math.max(...v) : Number.NaN))],
    ["min", cols.map((v) => (v.length ? Math.min(...v) : Number.NaN))],
    ["median", median],
    ["std", std],
  ];
  const out: Record<string, number> = {};
  for (const [stat, values] of stats)
    columns.forEach((c, i) => {
      const v = values[i] as number;
      if (!Number.isNaN(v)) out[`${stat}/${c}`] = v;
    });
  return out;
}

function rolloutInfo(vr: Record<string, unknown>, t: number, r: number): Record<string, unknown> {
  const info: Record<string, unknown> = { rollout_id: `${t}:${r}`, [TASK_INDEX]: t, [ROLLOUT_INDEX]: r };
  if ("reward" in vr) info.reward = vr.reward;
  const fields: Row = new Map();
  numericFields(usageOf(vr), fields);
  numericFields(vr, fields, new Set([TASK_INDEX, ROLLOUT_INDEX, "reward", "response"]));
  for (const [k, v] of fields) info[k] = v;
  return info;
}

export function aggregateMetrics(verifyResponses: ReadonlyArray<Record<string, unknown>>): AggregateMetrics {
  if (verifyResponses.length === 0) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
  const seen = new Set<string>();
  const columns: string[] = [];
  const byTask = new Map<number, Array<{ row: Row; r: number; vr: Record<string, unknown> }>>();
  for (const vr of verifyResponses) {
    const t = numeric(vr[TASK_INDEX]) ?? 0;
    const r = numeric(vr[ROLLOUT_INDEX]) ?? 0;
    const key = `${t},${r}`;
    if (seen.has(key)) throw new NemoHttpError(500, `Duplicate result row for rollout key (${t}, ${r})`, "invalid");
    seen.add(key);
    const row: Row = new Map();
    numericFields({ ...vr, ...usageOf(vr) }, row, new Set([TASK_INDEX, ROLLOUT_INDEX]));
    for (const c of row.keys()) if (!columns.includes(c)) columns.push(c);
    byTask.set(t, [...(byTask.get(t) ?? []), { row, r, vr }]);
  }
  const tasks = [...byTask.keys()].sort((a, b) => a - b);
  const group_level_metrics = tasks.map((t) => {
    const group = byTask.get(t) ?? [];
    return {
      [TASK_INDEX]: t,
      ...describe(
        group.map((g) => g.row),
        columns,
      ),
      sample: { agent_ref: { name: "agent" } },
      num_rollouts: group.length,
      expected_num_rollouts: group.length,
      missing_num_rollouts: 0,
      reward_profile_completion_pct: 100,
      rollout_infos: group
        .map((g) => rolloutInfo(g.vr, t, g.r))
        .sort((a, b) => (a[ROLLOUT_INDEX] as number) - (b[ROLLOUT_INDEX] as number)),
    };
  });
  const all = tasks.flatMap((t) => (byTask.get(t) ?? []).map((g) => g.row));
  const agent_metrics = describe(all, columns);
  const key_metrics = Object.fromEntries(Object.entries(agent_metrics).filter(([k]) => k.startsWith("mean/")));
  return { group_level_metrics, agent_metrics, key_metrics };
}
