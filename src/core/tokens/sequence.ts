import type { RolloutTokens, TrajectoryEvent } from "../schema/trajectory";
import { readTurnTokens } from "./codec";
import { TokenLedger } from "./ledger";

/** A rollout's final token sequence, as a trainer reads it. */
export interface RolloutSequence {
  ids: number[];
  /** The sampler's logprob at each sampled position; 0 elsewhere (masked out). */
  logprobs: number[];
  /** Whether each position has a logprob from the sampler (false for prompt tokens, and for turns without logprobs). */
  hasLogprob: boolean[];
  summary: RolloutTokens;
  model?: string;
}

/**
 * The sequence rebuilt from the trajectory's turns: each turn's prompt is the sequence up to its
 * `prompt_offset` plus its stored prompt tokens, then its completion. The mask comes from replaying
 * the turns through the ledger that wrote them, so reader and writer cannot disagree. Null when no
 * turn captured tokens.
 */
export function rolloutSequence(events: readonly TrajectoryEvent[]): RolloutSequence | null {
  const ledger = new TokenLedger();
  let ids: number[] = [];
  let logprobs: number[] = [];
  let hasLogprob: boolean[] = [];
  let model: string | undefined;
  for (const e of events) {
    if (e.type !== "message" || e.role !== "assistant" || !e.tokens) continue;
    const t = e.tokens;
    if (t.model) model = t.model;
    if (t.capture === "absent") {
      ledger.record({ capture: "absent" });
      continue;
    }
    const offset = t.prompt_offset ?? 0;
    let turn: ReturnType<typeof readTurnTokens>;
    try {
      turn = readTurnTokens(t);
    } catch (err) {
      throw new Error(`line ${e.seq + 1} (turn ${e.turn ?? "?"}), field tokens: ${(err as Error).message}`);
    }
    const prompt = ids.slice(0, offset).concat(turn.promptIds);
    const completion = turn.completionIds;
    const lps = turn.logprobs ?? [];
    ledger.record({ capture: t.capture, promptIds: prompt, completionIds: completion });
    const promptZeros = new Array<number>(prompt.length - offset).fill(0);
    logprobs = logprobs.slice(0, offset).concat(promptZeros, lps.length === completion.length ? lps : completion.map(() => 0));
    hasLogprob = hasLogprob.slice(0, offset).concat(
      promptZeros.map(() => false),
      completion.map(() => lps.length === completion.length),
    );
    ids = prompt.concat(completion);
  }
  const summary = ledger.summary();
  if (!summary || summary.capture === "absent") return null;
  return { ids, logprobs, hasLogprob, summary, ...(model ? { model } : {}) };
}

/** A [start, end) range list as one 0/1 value per token. */
export function maskArray(ranges: readonly (readonly [number, number])[], length: number): number[] {
  const out = new Array<number>(length).fill(0);
  for (const [s, e] of ranges) for (let i = s; i < e && i < length; i++) out[i] = 1;
  return out;
}
