import { abortReason } from "../util/backoff";

/** One request's abort signal and the way to let go of it once the request is over. */
export interface RequestSignal {
  readonly signal: AbortSignal;
  /** Removes the listener on the run's signal and clears the deadline; call it when the request ends, however it ends. */
  done(): void;
}

/**
 * A signal for one request, aborted by the run's signal (with its reason) or by the deadline, whichever
 * comes first. The run's signal lives as long as the rollout: whatever a request leaves on it stays
 * until the rollout ends. The OpenAI SDK adds a listener to the signal it is given and never removes it
 * (one per turn, each holding that request's controller), and AbortSignal.any keeps a reference per
 * request until a GC; this child is let go of at `done()`, and whatever the SDK hangs on it goes with it.
 */
export function requestSignal(run: AbortSignal, deadline?: { ms: number; message: string }): RequestSignal {
  const request = new AbortController();
  const stop = () => request.abort(abortReason(run));
  if (run.aborted) stop();
  else run.addEventListener("abort", stop, { once: true });
  const timer = deadline ? setTimeout(() => request.abort(new DOMException(deadline.message, "TimeoutError")), deadline.ms) : undefined;
  return {
    signal: request.signal,
    done() {
      if (timer) clearTimeout(timer);
      run.removeEventListener("abort", stop);
    },
  };
}
