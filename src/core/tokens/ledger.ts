import type { RolloutTokens, TurnTokens } from "../schema/trajectory";
import { TOKENS_ENCODING } from "./codec";
import { packTurnV3 } from "./packed-v3";
import type { SampledTokens } from "./types";

/** Length of the common prefix of two id lists. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * One rollout's token sequence, turn by turn. Each turn's prompt must start with the previous
 * prompt + completion; where it does not (a server that re-renders and re-tokenises the chat),
 * the turn records the first differing position and counts as drift. Sampled tokens that a later
 * prompt rewrote are no longer the policy's own, so they leave the loss mask.
 */
export class TokenLedger {
  private sequence: number[] = [];
  /** [start, end) of sampled tokens in `sequence`. */
  private mask: Array<[number, number]> = [];
  private driftTurns = 0;
  private turnsWith = 0;
  private turnsWithout = 0;
  private kind: "server" | "engine" = "server";

  /** The trajectory field for this turn. */
  record(t: SampledTokens): TurnTokens {
    const meta = {
      ...(t.finishReason ? { finish_reason: t.finishReason } : {}),
      ...(t.model ? { model: t.model } : {}),
      ...(t.revision ? { revision: t.revision } : {}),
    };
    if (t.capture === "absent" || !t.completionIds) {
      this.turnsWithout++;
      return { capture: "absent", ...meta };
    }
    this.turnsWith++;
    this.kind = t.capture;
    const prompt = t.promptIds ?? this.sequence;
    const offset = commonPrefix(this.sequence, prompt);
    const drifted = offset < this.sequence.length;
    if (drifted) this.driftTurns++;
    this.sequence = prompt.concat(t.completionIds);
    this.mask = this.mask.flatMap(([s, e]): Array<[number, number]> => (s >= offset ? [] : [[s, Math.min(e, offset)]]));
    if (t.completionIds.length > 0) this.mask.push([prompt.length, prompt.length + t.completionIds.length]);
    return {
      capture: t.capture,
      prompt_offset: offset,
      encoding: TOKENS_ENCODING,
      packed: packTurnV3({
        promptIds: prompt.slice(offset),
        completionIds: t.completionIds,
        ...(t.logprobs && t.logprobs.length === t.completionIds.length ? { logprobs: t.logprobs } : {}),
      }),
      ...(drifted ? { drift_at: offset } : {}),
      ...meta,
    };
  }

  /** The end event's field; undefined when no turn reported tokens at all. */
  summary(): RolloutTokens | undefined {
    if (this.turnsWith + this.turnsWithout === 0) return undefined;
    return {
      capture: this.turnsWith === 0 ? "absent" : this.turnsWithout > 0 ? "partial" : this.kind,
      length: this.sequence.length,
      loss_mask: this.mask.map(([s, e]) => [s, e]),
      drift_turns: this.driftTurns,
    };
  }
}
