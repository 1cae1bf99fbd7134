import type { TrajectoryEvent } from "../../schema/trajectory";
import { isTokenTurn, turnTokenWindow } from "../model/turn-tokens";
import type { TurnTokenWindow } from "../protocol/tokens";
import type { TokenPieces } from "./token-text";
import type { TrajectoryIndex } from "./trajectory-index";

const ROWS_AT_ONCE = 200;

/** The prompt offsets of captured turns in rows [from, end): each later turn may have rewritten earlier tokens. */
async function offsetsFrom(idx: TrajectoryIndex, from: number): Promise<number[]> {
  const out: number[] = [];
  for (let r = from; r < idx.rowCount; r += ROWS_AT_ONCE)
    for (const { entries } of await idx.entries(r, r + ROWS_AT_ONCE))
      for (const e of entries)
        if ("event" in e && isTokenTurn(e.event) && e.event.tokens.capture !== "absent") out.push(e.event.tokens.prompt_offset ?? 0);
  return out;
}

/**
 * The `tokens` request: a window of each captured turn of a step. Later turns are read only when
 * the rollout may have drifted (no end yet, or its end counts drifted turns): otherwise no token
 * of this turn was rewritten and the rest of the file stays unread.
 */
export async function stepTokens(
  idx: TrajectoryIndex,
  row: number,
  opts: { line?: number; from: number; limit: number; pieces?: TokenPieces | null },
): Promise<TurnTokenWindow[]> {
  const [step] = await idx.entries(row, row + 1);
  const turns = (step?.entries ?? []).flatMap((e) => ("event" in e && isTokenTurn(e.event) ? [{ line: e.line, event: e.event }] : []));
  const wanted = turns.filter((t) => opts.line === undefined || t.line === opts.line);
  if (wanted.length === 0) return [];
  const end: TrajectoryEvent | null = idx.meta("").end;
  const noDrift = end?.type === "end" && end.tokens !== undefined && end.tokens.drift_turns === 0;
  const after = noDrift ? [] : await offsetsFrom(idx, row + 1);
  return wanted.map(({ line, event }) => {
    const sameRowLater = turns
      .filter((t) => t.line > line && t.event.tokens.capture !== "absent")
      .map((t) => t.event.tokens.prompt_offset ?? 0);
    return turnTokenWindow(line, event.tokens, [...sameRowLater, ...after], opts.from, opts.limit, opts.pieces ?? undefined);
  });
}
