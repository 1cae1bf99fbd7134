import path from "node:path";
import { type AtifStep, type AtifTrajectory, rolloutToAtif } from "./atif";
import type { TrajectoryEvent } from "../schema/trajectory";
import { readTurnTokens } from "../tokens/codec";
import { picked, type RlExportOptions, scoredRollouts } from "../runs/export-rl";

/**
 * ATIF's step metrics with the fields it has for a turn's tokens (v1.3: completion ids and
 * logprobs; v1.4: the prompt's ids, the whole prompt the model was sent, history included).
 */
export interface AtifTokenMetrics {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_token_ids?: number[];
  completion_token_ids?: number[];
  logprobs?: number[];
}

export type AtifStepWithTokens = Omit<AtifStep, "metrics"> & { metrics?: AtifTokenMetrics };
export type AtifWithTokens = Omit<AtifTrajectory, "steps"> & { steps: AtifStepWithTokens[] };

/** The tokens of each assistant turn, in order (null for a turn that captured none), as the model saw and sampled them. */
function turnTokens(events: readonly TrajectoryEvent[]): Array<AtifTokenMetrics | null> {
  const out: Array<AtifTokenMetrics | null> = [];
  let sequence: number[] = [];
  for (const e of events) {
    if (e.type !== "message" || e.role !== "assistant") continue;
    if (!e.tokens || e.tokens.capture === "absent") {
      out.push(null);
      continue;
    }
    let turn: ReturnType<typeof readTurnTokens>;
    try {
      turn = readTurnTokens(e.tokens);
    } catch (err) {
      throw new Error(`line ${e.seq + 1} (turn ${e.turn ?? "?"}), field tokens: ${(err as Error).message}`);
    }
    // A turn stores its prompt from prompt_offset on; the tokens before it are the sequence so far.
    const prompt = sequence.slice(0, e.tokens.prompt_offset ?? 0).concat(turn.promptIds);
    const completion = turn.completionIds;
    const lps = turn.logprobs;
    out.push({
      prompt_token_ids: prompt,
      completion_token_ids: completion,
      ...(lps && lps.length === completion.length ? { logprobs: lps } : {}),
    });
    sequence = prompt.concat(completion);
  }
  return out;
}

/**
 * A rollout as ATIF with each agent step's captured tokens in ATIF's own metrics fields:
 * `prompt_token_ids`, `completion_token_ids`, `logprobs` (one per completion id). The token
 * counts come from the ids where the server reported no usage, so they match the lists.
 */
export function rolloutToAtifWithTokens(events: readonly TrajectoryEvent[], version: string): AtifWithTokens {
  const atif = rolloutToAtif(events, version);
  const tokens = turnTokens(events);
  let turn = 0;
  const steps = atif.steps.map((s): AtifStepWithTokens => {
    // rolloutToAtif makes one agent step of each assistant message, in order.
    if (s.source !== "agent") return s;
    const t = tokens[turn++];
    if (!t) return s;
    return {
      ...s,
      metrics: {
        prompt_tokens: s.metrics?.prompt_tokens ?? t.prompt_token_ids?.length,
        completion_tokens: s.metrics?.completion_tokens ?? t.completion_token_ids?.length,
        ...t,
      },
    };
  });
  return { ...atif, steps };
}

export type AtifExportItem = { name: string; atif: AtifWithTokens } | { broken: string };

/**
 * The run's scored rollouts as ATIF, picked as every other format picks them: ended, neither
 * cancelled nor failed by the infrastructure, then `--min-reward` and `--status`. A rollout
 * whose token fields do not read back is named (file, line, field) and left out; the others go on.
 */
export function* exportAtifTrajectories(runDir: string, version: string, o: RlExportOptions = {}): Generator<AtifExportItem> {
  for (const r of scoredRollouts(runDir).rollouts) {
    if (!picked(r, o)) continue;
    let item: AtifExportItem;
    try {
      item = { name: path.basename(r.file, ".jsonl"), atif: rolloutToAtifWithTokens(r.events, version) };
    } catch (err) {
      item = { broken: `${r.file}: ${(err as Error).message}` };
    }
    yield item;
  }
}
