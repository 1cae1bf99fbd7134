import type { RolloutRow } from "../protocol/dashboard";

/** A numeric range; either end may be open. */
export interface Range {
  min?: number | null;
  max?: number | null;
}

/** What the dashboard filters rollouts by; every part given must hold. */
export interface RolloutFilter {
  /** Words in the rollout id, task or status. */
  text?: string;
  status?: string;
  reward?: Range;
  /** Seconds. */
  duration?: Range;
  tokens?: Range;
  /** `key=value` (exact) or `key~text` (contains), one per line or comma-separated; keys as in the rollout's meta. */
  meta?: string;
}

export interface MetaCondition {
  key: string;
  op: "=" | "~";
  value: string;
}

/** The metadata conditions of a filter; a part that is not `key=value` or `key~text` is reported, not ignored. */
export function parseMetaConditions(src: string): { conditions: MetaCondition[]; errors: string[] } {
  const conditions: MetaCondition[] = [];
  const errors: string[] = [];
  for (const part of src
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^=~]+?)\s*([=~])\s*(.*)$/.exec(part);
    if (!m) errors.push(`"${part}": write key=value or key~text`);
    else conditions.push({ key: m[1]!, op: m[2] as "=" | "~", value: m[3]! });
  }
  return { conditions, errors };
}

function inRange(v: number | null, r: Range | undefined): boolean {
  if (!r || ((r.min === null || r.min === undefined) && (r.max === null || r.max === undefined))) return true;
  if (v === null) return false;
  return (r.min === null || r.min === undefined || v >= r.min) && (r.max === null || r.max === undefined || v <= r.max);
}

/** Each row's lowercased "id task status", made once per row (a filter runs on every keystroke). */
const haystacks = new WeakMap<RolloutRow, string>();
function haystack(r: RolloutRow): string {
  let text = haystacks.get(r);
  if (text === undefined) {
    text = `${r.id} ${r.task ?? ""} ${r.status}`.toLowerCase();
    haystacks.set(r, text);
  }
  return text;
}

/** The filter as one test, its text and conditions prepared once. */
export function rolloutTest(f: RolloutFilter): (r: RolloutRow) => boolean {
  const text = f.text?.trim().toLowerCase() ?? "";
  const { conditions } = parseMetaConditions(f.meta ?? "");
  return (r) => {
    if (f.status && r.status !== f.status) return false;
    if (text && !haystack(r).includes(text)) return false;
    if (!inRange(r.reward, f.reward)) return false;
    if (!inRange(r.duration_ms === null ? null : r.duration_ms / 1000, f.duration)) return false;
    if (!inRange(r.tokens, f.tokens)) return false;
    for (const c of conditions) {
      const values = r.meta.filter(([k]) => k === c.key).map(([, v]) => v);
      const ok = c.op === "=" ? values.includes(c.value) : values.some((v) => v.toLowerCase().includes(c.value.toLowerCase()));
      if (!ok) return false;
    }
    return true;
  };
}

/** The rollouts that pass the filter, in their order. */
export function filterRollouts(rows: RolloutRow[], f: RolloutFilter): RolloutRow[] {
  return rows.filter(rolloutTest(f));
}
