import type { TrajectoryEvent } from "../schema/trajectory";
import { maskArray, rolloutSequence } from "../tokens/sequence";
import { trajectoryToChat } from "./export-chat";
import { ADVANTAGE_EPSILON, advantage, type GroupStats, groupStats } from "./group-advantage";
import { endedOnInfra, rolloutFiles } from "./run-dir";
import { readTrajectory } from "./trajectory-reader";
import { trlMessages } from "./trl-messages";

/** One rollout as a policy-gradient trainer reads it (rl-jsonl and parquet share these columns). */
export interface RlRecord {
  run_id: string;
  rollout_id: string;
  task: string;
  sample: number;
  /** task × run: the rollouts whose rewards are normalised together. */
  group_id: string;
  status: string;
  reward: number;
  reward_components: Record<string, number>;
  advantage: number;
  group_size: number;
  group_mean: number;
  group_std: number;
  model: string | null;
  capture: string;
  drift_turns: number;
  input_ids: number[];
  /** 1 for each policy-sampled token, 0 for prompt, observations and template glue. */
  loss_mask: number[];
  /** The sampler's logprob for each sampled token; 0 where loss_mask is 0. */
  logprobs: number[];
  /** Tokens before the first sampled one: the initial prompt. */
  prompt_length: number;
}

/** One rollout as TRL's conversational prompt–completion records (datasets.load_dataset("json", ...)). */
export interface TrlRecord {
  prompt: unknown[];
  completion: unknown[];
  reward: number;
  tools?: unknown[];
  task: string;
  rollout_id: string;
}

export interface RlExportOptions {
  minReward?: number;
  statuses?: string[];
}

export interface Scored {
  file: string;
  events: TrajectoryEvent[];
  start: Extract<TrajectoryEvent, { type: "start" }>;
  end: Extract<TrajectoryEvent, { type: "end" }>;
  reward: number;
  group: string;
}

/** One rollout file as a scored rollout; undefined when it did not end, ended on the infrastructure or was cancelled. */
export function scoredRollout(file: string): Scored | undefined {
  const { events } = readTrajectory(file);
  const start = events.find((e) => e.type === "start");
  const end = events.findLast((e) => e.type === "end");
  if (start?.type !== "start" || end?.type !== "end" || endedOnInfra(events) || end.status === "cancelled") return undefined;
  // An error or timeout scores 0, as in the run summary.
  return { file, events, start, end, reward: end.reward ?? 0, group: `${start.run_id}/${start.task.id}` };
}

function groupsOf(rollouts: ReadonlyArray<{ group: string; reward: number }>): Map<string, GroupStats> {
  const byGroup = new Map<string, number[]>();
  for (const r of rollouts) {
    const list = byGroup.get(r.group);
    if (list) list.push(r.reward);
    else byGroup.set(r.group, [r.reward]);
  }
  return new Map([...byGroup].map(([g, rs]) => [g, groupStats(rs)]));
}

/**
 * The run's scored rollouts (ended, not cut by the infrastructure), with the group statistics over
 * all of them: filters pick the records afterwards, so a filter never shifts another rollout's advantage.
 */
export function scoredRollouts(runDir: string): { rollouts: Scored[]; groups: Map<string, GroupStats> } {
  const rollouts: Scored[] = [];
  for (const file of rolloutFiles(runDir)) {
    const r = scoredRollout(file);
    if (r) rollouts.push(r);
  }
  return { rollouts, groups: groupsOf(rollouts) };
}

export const picked = (r: Scored, o: RlExportOptions) =>
  (o.minReward === undefined || r.reward >= o.minReward) && (!o.statuses || o.statuses.includes(r.end.status));

export interface RlExport {
  records: RlRecord[];
  /** Rollouts left out because their policy reported no tokens (a server without capture). */
  withoutTokens: number;
  /** Rollouts left out because their token fields do not read back: the file and what is wrong. */
  broken: string[];
}

/** rl-jsonl / parquet records: every scored rollout whose tokens were captured. */
export function exportRlRecords(runDir: string, o: RlExportOptions = {}): RlExport {
  const { rollouts, groups } = scoredRollouts(runDir);
  const tally = { withoutTokens: 0, broken: [] as string[] };
  const records: RlRecord[] = [];
  for (const r of rollouts) {
    if (!picked(r, o)) continue;
    const rec = rlRecordOf(r, groups.get(r.group) as GroupStats, tally);
    if (rec) records.push(rec);
  }
  return { records, ...tally };
}

/**
 * The same records as exportRlRecords, one at a time, holding one trajectory in memory: a
 * first pass reads each rollout for its group's statistics only, the second builds the records.
 * `tally` counts what was left out as the records are taken.
 */
export function* streamRlRecords(runDir: string, o: RlExportOptions, tally: Omit<RlExport, "records">): Generator<RlRecord> {
  const scored: Array<{ file: string; group: string; reward: number }> = [];
  for (const file of rolloutFiles(runDir)) {
    const r = scoredRollout(file);
    if (r) scored.push({ file: r.file, group: r.group, reward: r.reward });
  }
  const groups = groupsOf(scored);
  for (const { file } of scored) {
    const r = scoredRollout(file);
    if (!r || !picked(r, o)) continue;
    const rec = rlRecordOf(r, groups.get(r.group) as GroupStats, tally);
    if (rec) yield rec;
  }
}

/** One scored rollout's record; undefined (counted in `tally`) when it has no tokens or they do not read back. */
function rlRecordOf(r: Scored, g: GroupStats, tally: Omit<RlExport, "records">): RlRecord | undefined {
  let seq: ReturnType<typeof rolloutSequence>;
  try {
    seq = rolloutSequence(r.events);
  } catch (e) {
    // One damaged trajectory leaves the export; the others go on.
    tally.broken.push(`${r.file}: ${(e as Error).message}`);
    return undefined;
  }
  if (!seq) {
    tally.withoutTokens++;
    return undefined;
  }
  const components: Record<string, number> = {};
  const rewardEvent = r.events.findLast((e) => e.type === "reward");
  if (rewardEvent?.type === "reward") for (const c of rewardEvent.components) components[c.name] = c.score;
  return {
    run_id: r.start.run_id,
    rollout_id: r.start.rollout_id,
    task: r.start.task.id,
    sample: r.start.sample,
    group_id: r.group,
    status: r.end.status,
    reward: r.reward,
    reward_components: components,
    advantage: advantage(r.reward, g),
    group_size: g.n,
    group_mean: g.mean,
    group_std: g.std,
    model: seq.model ?? r.start.policy.model ?? null,
    capture: seq.summary.capture,
    drift_turns: seq.summary.drift_turns,
    input_ids: seq.ids,
    loss_mask: maskArray(seq.summary.loss_mask, seq.ids.length),
    logprobs: seq.logprobs,
    prompt_length: seq.summary.loss_mask[0]?.[0] ?? seq.ids.length,
  };
}

/** TRL records: the conversation up to the first assistant turn is the prompt, the rest the completion. */
export function exportTrlRecords(runDir: string, o: RlExportOptions = {}): TrlRecord[] {
  const out: TrlRecord[] = [];
  for (const r of scoredRollouts(runDir).rollouts) {
    if (!picked(r, o)) continue;
    const chat = trajectoryToChat(r.events);
    if (!chat) continue;
    const first = chat.messages.findIndex((m) => m.role === "assistant");
    if (first < 0) continue;
    const messages = trlMessages(chat.messages);
    out.push({
      prompt: messages.slice(0, first),
      completion: messages.slice(first),
      reward: r.reward,
      ...(chat.tools ? { tools: chat.tools } : {}),
      task: r.start.task.id,
      rollout_id: r.start.rollout_id,
    });
  }
  return out;
}

export { ADVANTAGE_EPSILON };
