import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { RunRecord } from "../../schema/run";
import { ChatTokenizer } from "../../tokens/chat-template";

/** Each id's text piece, one per id. */
export type TokenPieces = (ids: readonly number[]) => string[];

/** Tokenizers by folder: loading tokenizer.json takes a while, and every turn of a run shares one. */
const loaded = new Map<string, ChatTokenizer | null>();

/**
 * The text of each token, for a rollout of a token-in/token-out run whose tokenizer folder
 * (run.json's `config.policy.tokenizer`) is on this machine. Null otherwise: trajectories
 * hold ids only, and the viewer then shows ids. Each id is decoded alone, so a character
 * split across byte-level tokens shows as its replacement mark in each piece.
 */
export function tokenPiecesForRollout(rollout: string): TokenPieces | null {
  const dir = path.dirname(rollout);
  if (path.basename(dir) !== "rollouts") return null;
  const runJson = path.join(path.dirname(dir), "run.json");
  let folder: string | undefined;
  try {
    const rec = RunRecord.safeParse(JSON.parse(readFileSync(runJson, "utf8")));
    folder = rec.success ? rec.data.config.policy.tokenizer : undefined;
  } catch {
    return null;
  }
  if (!folder || !existsSync(path.join(folder, "tokenizer.json"))) return null;
  let tok = loaded.get(folder);
  if (tok === undefined) {
    try {
      tok = new ChatTokenizer(folder);
    } catch {
      tok = null;
    }
    loaded.set(folder, tok);
  }
  const t = tok;
  return t ? (ids) => ids.map((id) => t.decode([id])) : null;
}
