/** What a token-capturing policy hands the engine for one turn, as plain arrays (the ledger encodes them). */
export interface SampledTokens {
  capture: "server" | "engine" | "absent";
  /** The whole prompt this turn was sampled from; absent when capture is absent. */
  promptIds?: number[];
  completionIds?: number[];
  /** One per completion id; absent when the server returned ids but no logprobs. */
  logprobs?: number[];
  finishReason?: string;
  model?: string;
  revision?: string;
}
