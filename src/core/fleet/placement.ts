import type { RunnerStatus } from "../remote/api";

/** One rollout of a job: a task and its sample number (the sample keeps its number wherever it runs). */
export interface RolloutRef {
  key: string;
  task: string;
  sample: number;
}

/**
 * How much of a job a member should get, from its `/v1/status`: its capacity (idle GPUs
 * where the pool has GPUs, else its CPUs) scaled down by how busy it is (a member with no
 * free job slot gets a share that shrinks with the jobs queued before ours). 0: give it nothing.
 */
export function memberWeight(s: RunnerStatus, poolHasGpus: boolean): number {
  const capacity = poolHasGpus ? s.gpus.idle : Math.max(1, s.cpus);
  const availability = s.slots.free > 0 ? 1 : 1 / (2 + s.queue);
  return capacity * availability;
}

/**
 * Splits rollouts over members in proportion to their weights (largest remainder, so the
 * shares add up exactly). Rollouts keep their order, so a task's samples stay together
 * where the split allows. Members of weight 0 get nothing unless every weight is 0, in
 * which case the split is even. Returns only non-empty shares.
 */
export function placeRollouts<M>(
  rollouts: readonly RolloutRef[],
  members: ReadonlyArray<{ member: M; weight: number }>,
): Array<{ member: M; rollouts: RolloutRef[] }> {
  if (members.length === 0 || rollouts.length === 0) return [];
  const positive = members.some((m) => m.weight > 0 && Number.isFinite(m.weight));
  const weights = members.map((m) => (positive ? (m.weight > 0 && Number.isFinite(m.weight) ? m.weight : 0) : 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (rollouts.length * w) / sum);
  const counts = exact.map(Math.floor);
  let left = rollouts.length - counts.reduce((a, b) => a + b, 0);
  // The largest remainders get the rollouts left over; ties go to the earlier member.
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    left -= 1;
  }
  const out: Array<{ member: M; rollouts: RolloutRef[] }> = [];
  let at = 0;
  members.forEach((m, i) => {
    const n = counts[i] ?? 0;
    if (n > 0) out.push({ member: m.member, rollouts: rollouts.slice(at, at + n) });
    at += n;
  });
  return out;
}

/** The `samples` of a run config that covers exactly these rollouts, and its task list in first-seen order. */
export function samplesConfig(rollouts: readonly RolloutRef[]): { tasks: string[]; samples: Record<string, number[]> } {
  const samples: Record<string, number[]> = {};
  for (const r of rollouts) {
    const list = samples[r.task] ?? [];
    list.push(r.sample);
    samples[r.task] = list;
  }
  return { tasks: Object.keys(samples), samples };
}
