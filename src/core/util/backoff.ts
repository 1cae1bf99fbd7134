/** Exponential backoff with full jitter, abortable: shared by the policy client, the judge and the scheduler. */
export interface BackoffOptions {
  /** Delay before the first retry, in milliseconds. */
  baseMs: number;
  /** Upper bound of one delay. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 8_000 };

/** The delay before retry number `attempt` (0-based): uniform in [cap/2, cap] so parallel clients spread out. */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const cap = Math.min(opts.maxMs, opts.baseMs * 2 ** attempt);
  return cap / 2 + random() * (cap / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The error to throw for an aborted signal: its reason when it is an Error, else a plain AbortError. */
export function abortReason(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  if (r instanceof Error) return r;
  const e = new Error(typeof r === "string" ? r : "aborted");
  e.name = "AbortError";
  return e;
}
