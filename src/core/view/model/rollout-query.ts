/**
 * The compare picker's filter over a run's rollouts: words that must each appear in a rollout's
 * id, task or shown reward ("0.85"), and reward bounds (`reward>0.5`, `>=0.9`, `<0.2`, `=1`).
 * Pure, so the webview and the tests share it.
 */
export interface RolloutQuery {
  words: string[];
  bounds: Array<{ op: "<" | "<=" | ">" | ">=" | "="; value: number }>;
}

export interface QueriedRollout {
  id: string;
  task: string | null;
  reward: number | null;
}

const BOUND = /^(?:reward|r)?(<=|>=|<|>|=)(-?(?:\d+\.?\d*|\.\d+))$/;

export function parseRolloutQuery(text: string): RolloutQuery {
  const q: RolloutQuery = { words: [], bounds: [] };
  for (const token of text.toLowerCase().split(/\s+/)) {
    if (!token) continue;
    const m = BOUND.exec(token);
    if (m) q.bounds.push({ op: m[1] as RolloutQuery["bounds"][number]["op"], value: Number(m[2]) });
    else q.words.push(token);
  }
  return q;
}

/** The text a rollout's words are looked for in (lower case): computed once per list, not per keystroke. */
export function rolloutHaystack(r: QueriedRollout): string {
  return `${r.id}\n${r.task ?? ""}\n${r.reward === null ? "" : r.reward.toFixed(2)}`.toLowerCase();
}

function within(reward: number, b: RolloutQuery["bounds"][number]): boolean {
  switch (b.op) {
    case "<":
      return reward < b.value;
    case "<=":
      return reward <= b.value;
    case ">":
      return reward > b.value;
    case ">=":
      return reward >= b.value;
    default:
      // Rewards are floats (0.1 + 0.2): "=" is equal to the shown precision.
      return Math.abs(reward - b.value) < 0.005;
  }
}

export function matchesRollout(q: RolloutQuery, r: QueriedRollout, haystack = rolloutHaystack(r)): boolean {
  for (const b of q.bounds) if (r.reward === null || !within(r.reward, b)) return false;
  for (const w of q.words) if (!haystack.includes(w)) return false;
  return true;
}
