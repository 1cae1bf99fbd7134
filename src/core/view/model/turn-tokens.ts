import type { MessageEvent, TrajectoryEvent, TurnTokens } from "../../schema/trajectory";
import { readTurnTokens } from "../../tokens/codec";
import type { TurnTokenWindow } from "../protocol/tokens";

/** A turn's decoded token lists: the stored prompt (from `prompt_offset` on), the completion and its logprobs. */
export interface DecodedTurn {
  offset: number;
  prompt: number[];
  completion: number[];
  logprobs: number[];
}

/** The viewer reads the trajectory's token encoding through the same reader as the exports (docs/exports.md). */
export function decodeTurn(t: TurnTokens): DecodedTurn {
  if (t.capture === "absent") return { offset: t.prompt_offset ?? 0, prompt: [], completion: [], logprobs: [] };
  const a = readTurnTokens(t);
  return { offset: t.prompt_offset ?? 0, prompt: a.promptIds, completion: a.completionIds, logprobs: a.logprobs ?? [] };
}

export type CapturedMessage = MessageEvent & { tokens: TurnTokens };

/** Whether an event is an assistant turn that carries a tokens field (captured or said absent). */
export function isTokenTurn(e: TrajectoryEvent): e is CapturedMessage {
  return e.type === "message" && e.role === "assistant" && e.tokens !== undefined;
}

/**
 * Where later turns rewrote this one's tokens: the ledger keeps the sequence up to each turn's
 * `prompt_offset`, so a token at position p survives every later turn whose offset is above p.
 * The lowest later offset below the turn's end is where its tokens stop being the policy's own.
 */
export function rewrittenFrom(turnEnd: number, laterOffsets: Iterable<number>): number | null {
  let cut: number | null = null;
  for (const o of laterOffsets) if (o < turnEnd && (cut === null || o < cut)) cut = o;
  return cut;
}

function stats(lps: readonly number[]): TurnTokenWindow["logprob_stats"] {
  if (lps.length === 0) return null;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const v of lps) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { min, mean: sum / lps.length, max };
}

/** A finite number as JSON can carry it (a server may send -inf for an impossible token). */
const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * One window [from, from + limit) of a captured turn's tokens: prompt tokens first (not sampled),
 * then the sampled ones with their logprobs. `laterOffsets` are the prompt offsets of the captured
 * turns that follow it in the rollout (for the tokens a drifting turn rewrote).
 */
export function turnTokenWindow(
  line: number,
  t: TurnTokens,
  laterOffsets: Iterable<number>,
  from: number,
  limit: number,
  pieces?: (ids: readonly number[]) => string[],
): TurnTokenWindow {
  const d = decodeTurn(t);
  const total = d.prompt.length + d.completion.length;
  const hasLogprobs = d.completion.length > 0 && d.logprobs.length === d.completion.length;
  const start = Math.min(from, total);
  const end = Math.min(total, start + limit);
  const ids: number[] = [];
  const logprobs: Array<number | null> = [];
  for (let i = start; i < end; i++) {
    const inPrompt = i < d.prompt.length;
    ids.push(inPrompt ? d.prompt[i]! : d.completion[i - d.prompt.length]!);
    logprobs.push(!inPrompt && hasLogprobs ? finite(d.logprobs[i - d.prompt.length]!) : null);
  }
  return {
    line,
    capture: t.capture,
    model: t.model ?? null,
    finish_reason: t.finish_reason ?? null,
    offset: d.offset,
    prompt: d.prompt.length,
    completion: d.completion.length,
    drift_at: t.drift_at ?? null,
    rewritten_from: rewrittenFrom(d.offset + total, laterOffsets),
    has_logprobs: hasLogprobs,
    logprob_stats: hasLogprobs ? stats(d.logprobs.filter(Number.isFinite)) : null,
    from: start,
    ids,
    logprobs,
    text: pieces && ids.length > 0 ? pieces(ids) : null,
  };
}
