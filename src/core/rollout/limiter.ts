import { abortReason } from "../util/backoff";

/**
 * A counting semaphore that also keeps the clock: how long at least one holder was in
 * (the policy's utilisation) and how deep the queue of waiters got.
 */
export class Limiter {
  private active = 0;
  private readonly waiters: Array<{ grant: () => void }> = [];
  private busySince: number | null = null;
  private busyMs = 0;
  private maxQueue = 0;

  private cap: number;

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new Error(`a limit must be at least 1, got ${capacity}`);
    this.cap = capacity;
  }

  get capacity(): number {
    return this.cap;
  }

  /** A new limit (adaptive concurrency): a raise lets waiters in now; a cut takes effect as holders leave. */
  setCapacity(capacity: number): void {
    if (!(capacity >= 1)) throw new Error(`a limit must be at least 1, got ${capacity}`);
    this.cap = capacity;
    while (this.active < this.cap && this.waiters.length > 0) this.waiters.shift()!.grant();
  }

  get inFlight(): number {
    return this.active;
  }

  get queueDepth(): number {
    return this.waiters.length;
  }

  get maxQueueDepth(): number {
    return this.maxQueue;
  }

  /** Milliseconds during which at least one holder was in, up to now. */
  busyTime(now = performance.now()): number {
    return this.busyMs + (this.busySince !== null ? now - this.busySince : 0);
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.cap) {
      this.enter();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.enter();
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortReason(signal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.maxQueue = Math.max(this.maxQueue, this.waiters.length);
    });
  }

  private enter(): void {
    if (this.active === 0) this.busySince = performance.now();
    this.active++;
  }

  private release(): void {
    this.active--;
    if (this.active === 0 && this.busySince !== null) {
      this.busyMs += performance.now() - this.busySince;
      this.busySince = null;
    }
    if (this.active < this.cap) this.waiters.shift()?.grant();
  }
}
