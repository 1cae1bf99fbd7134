/**
 * The one deadline race of the engine: a piece of work against a timer (and, when given, an abort
 * signal). The race settles when the deadline passes even if the work never honours its signal;
 * the timer and the abort listener are always released. Each caller decides what a timeout means
 * to it (a value, an error, a default).
 */
export type DeadlineResult<T> = { ok: true; value: T } | { ok: false; why: "timeout" | "aborted" };

/** The work's value, or why it did not come: the deadline of `ms` passed, or `signal` aborted first. Rejects as the work does. */
export async function withDeadline<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<DeadlineResult<T>> {
  if (signal?.aborted) {
    work.catch(() => {});
    return { ok: false, why: "aborted" };
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<DeadlineResult<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, why: "timeout" }), ms);
  });
  const aborted = new Promise<DeadlineResult<T>>((resolve) => {
    onAbort = () => resolve({ ok: false, why: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const done = work.then((value): DeadlineResult<T> => ({ ok: true, value }));
  try {
    return await Promise.race([done, expired, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    // A work that loses the race and fails later must not become an unhandled rejection.
    done.catch(() => {});
  }
}
