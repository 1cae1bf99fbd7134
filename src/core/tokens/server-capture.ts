import type { SampledTokens } from "./types";

/**
 * What OpenAI-compatible servers return about tokens, beyond the OpenAI schema. vLLM (with
 * `return_token_ids`) puts the prompt's ids on the response and the sampled ids on the choice;
 * SGLang names them the same way or `output_token_ids`; either may instead spell ids in the logprob
 * entries (`token_id`, or vLLM's `token: "token_id:123"` with `return_tokens_as_token_ids`).
 */
export interface WireLogprob {
  token?: string;
  token_id?: number;
  logprob?: number;
}

export interface WireChoice {
  finish_reason?: string | null;
  token_ids?: number[] | null;
  output_token_ids?: number[] | null;
  prompt_token_ids?: number[] | null;
  /** The entries, or (read by parseCompletionBody) their logprobs alone where an entry had the usual shape. */
  logprobs?: { content?: Array<WireLogprob | number> | null } | null;
}

export interface WireResponse {
  model?: string;
  system_fingerprint?: string | null;
  prompt_token_ids?: number[] | null;
}

/** The request fields that ask vLLM and SGLang for ids and logprobs; OpenAI's API refuses return_token_ids. */
export const CAPTURE_REQUEST = { logprobs: true, return_token_ids: true } as const;

const ID_TOKEN = /^token_id:(\d+)$/;

function idsFromLogprobs(entries: ReadonlyArray<WireLogprob | number>): number[] | undefined {
  const ids: number[] = [];
  for (const e of entries) {
    if (typeof e === "number") return undefined;
    if (typeof e.token_id === "number") ids.push(e.token_id);
    else {
      const m = e.token !== undefined ? ID_TOKEN.exec(e.token) : null;
      if (!m) return undefined;
      ids.push(Number(m[1]));
    }
  }
  return ids;
}

function isIds(v: unknown): v is number[] {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== "number" || x < 0 || x % 1 !== 0) return false;
  return true;
}

/** The turn's tokens from a complete (or stream-assembled) response; capture "absent" when it carried no ids. */
export function tokensFromResponse(res: WireResponse, choice: WireChoice): SampledTokens {
  const meta = {
    ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(res.model ? { model: res.model } : {}),
    ...(res.system_fingerprint ? { revision: res.system_fingerprint } : {}),
  };
  const entries = choice.logprobs?.content ?? [];
  const promptIds = res.prompt_token_ids ?? choice.prompt_token_ids;
  const completionIds = choice.token_ids ?? choice.output_token_ids ?? (entries.length > 0 ? idsFromLogprobs(entries) : undefined);
  if (!isIds(promptIds) || !isIds(completionIds)) return { capture: "absent", ...meta };
  // Logprobs that do not line up one to one with the ids are not the sampled tokens' own: left out, never guessed.
  let lps: number[] | undefined = entries.length === completionIds.length ? new Array<number>(entries.length) : undefined;
  for (let i = 0; lps && i < entries.length; i++) {
    const e = entries[i];
    const lp = typeof e === "number" ? e : e?.logprob;
    if (typeof lp === "number") lps[i] = lp;
    else lps = undefined;
  }
  return { capture: "server", promptIds, completionIds, ...(lps ? { logprobs: lps } : {}), ...meta };
}

/** Folds one streamed chunk's token fields into the running response and choice. */
export function accumulateChunk(res: WireResponse, choice: WireChoice, chunk: WireResponse, delta: WireChoice): void {
  if (chunk.model) res.model = chunk.model;
  if (chunk.system_fingerprint) res.system_fingerprint = chunk.system_fingerprint;
  const prompt = chunk.prompt_token_ids ?? delta.prompt_token_ids;
  if (isIds(prompt)) res.prompt_token_ids = prompt;
  const ids = delta.token_ids ?? delta.output_token_ids;
  if (isIds(ids)) choice.token_ids = (choice.token_ids ?? []).concat(ids);
  const entries = delta.logprobs?.content;
  if (entries?.length) choice.logprobs = { content: (choice.logprobs?.content ?? []).concat(entries) };
  if (delta.finish_reason) choice.finish_reason = delta.finish_reason;
}
