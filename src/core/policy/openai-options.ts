import type { BackoffOptions } from "../util/backoff";

/** What every OpenAI-compatible policy is given: the server, the model, sampling, and how to retry. */
export interface OpenAIServerOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Milliseconds for one HTTP request; a request past it is retried like a connection error. */
  timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx, connection errors and timeouts only. */
  retries?: number;
  backoff?: BackoffOptions;
}

/**
 * The policy's parameters as a trajectory records them: the sampling settings in their wire
 * names, then the policy's own (`extra`); whatever is unset is left out.
 */
export function recordedParams(opts: OpenAIServerOptions, extra: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({ temperature: opts.temperature, top_p: opts.topP, max_tokens: opts.maxTokens, seed: opts.seed, ...extra }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}
