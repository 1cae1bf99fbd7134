import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { abortReason, type BackoffOptions, DEFAULT_BACKOFF, sleep } from "../util/backoff";
import { observe } from "../util/observations";
import { retryDelay, UnreadableReplyError } from "./server-reply";
import { PolicyInfraError, PolicyRequestError } from "./types";

/** Whether a failed request is worth another try: rate limits, server errors, the network, a 2xx body that is no completion. Never a 4xx. */
export function isRetryable(e: unknown): boolean {
  if (e instanceof UnreadableReplyError) return true;
  if (e instanceof APIUserAbortError) return false;
  if (e instanceof APIConnectionError) return true; // includes APIConnectionTimeoutError
  if (e instanceof APIError) return e.status === undefined || e.status === 429 || e.status >= 500;
  return false;
}

/** Where a policy request goes and how often it is tried: what the retry loop needs of a policy's options. */
export interface RetryTarget {
  baseURL: string;
  retries?: number;
  backoff?: BackoffOptions;
}

/**
 * One policy request with the retries every OpenAI-compatible policy shares, so the chat and
 * Responses policies cannot drift apart on what is a fault and what is a refusal:
 *  - a 4xx (other than 429) is the request's own fault: PolicyRequestError at once, never retried;
 *  - 429, 5xx, the network and an unreadable 2xx are the server's: retried after the back-off, or
 *    after Retry-After where a 429/503 names it (asking sooner only adds to its queue), and once the
 *    retries are spent a PolicyInfraError, which the engine keeps out of the scores;
 *  - `resend(e)` may answer a refusal by changing the request (the chat policy drops the token
 *    capture fields a server does not know): true sends it again without counting a retry.
 * The time of the answered attempt is observed and returned as `latencyMs`.
 */
export async function retriedRequest<T extends object>(
  target: RetryTarget,
  signal: AbortSignal,
  once: () => Promise<T>,
  resend: (e: unknown) => boolean = () => false,
): Promise<T & { latencyMs: number }> {
  const retries = target.retries ?? 3;
  let last: unknown;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (signal.aborted) throw abortReason(signal);
    const started = performance.now();
    try {
      const reply = await once();
      const latencyMs = performance.now() - started;
      observe({ kind: "policy-request", ms: latencyMs });
      return { ...reply, latencyMs };
    } catch (e) {
      if (signal.aborted) throw abortReason(signal);
      if (resend(e)) {
        attempt--;
        continue;
      }
      if (!isRetryable(e)) {
        if (e instanceof APIError)
          throw new PolicyRequestError(`policy server refused the request (HTTP ${e.status}): ${e.message}`, e.status);
        throw e;
      }
      last = e;
      const status = e instanceof APIError ? e.status : undefined;
      const retryAfter = e instanceof APIError ? e.headers?.get("retry-after") : undefined;
      if (attempt < retries) await sleep(retryDelay(attempt, target.backoff ?? DEFAULT_BACKOFF, status, retryAfter), signal);
    }
  }
  const why = last instanceof Error ? last.message : String(last);
  throw new PolicyInfraError(`policy server at ${target.baseURL} failed ${retries + 1} times: ${why}`);
}
