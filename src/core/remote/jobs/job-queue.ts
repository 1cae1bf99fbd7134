/** A job being run: how to stop it, why it was stopped, and when it has. */
export interface ActiveJob {
  abort: AbortController;
  /** Why it was aborted: a user's cancel, or the runner shutting down. */
  reason?: "cancel" | "shutdown";
  done: Promise<void>;
}

/**
 * The runner's job queue: jobs wait in order and run while fewer than `capacity` do; each
 * one that ends makes room for the next. `run` must not throw (it records its own failure).
 */
export class JobQueue {
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, ActiveJob>();

  constructor(
    readonly capacity: number,
    private readonly run: (id: string, act: ActiveJob) => Promise<void>,
  ) {}

  /** Queues a job unless it waits or runs already. */
  enqueue(id: string): void {
    if (!this.waiting.includes(id) && !this.running.has(id)) this.waiting.push(id);
  }

  /** Takes a waiting job out of the queue; false when it was not waiting. */
  remove(id: string): boolean {
    const i = this.waiting.indexOf(id);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  isWaiting(id: string): boolean {
    return this.waiting.includes(id);
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  active(id: string): ActiveJob | undefined {
    return this.running.get(id);
  }

  get runningCount(): number {
    return this.running.size;
  }

  runningIds(): IterableIterator<string> {
    return this.running.keys();
  }

  allActive(): ActiveJob[] {
    return [...this.running.values()];
  }

  /** Starts waiting jobs while there is room. */
  pump(): void {
    while (this.running.size < this.capacity && this.waiting.length > 0) {
      const id = this.waiting.shift();
      if (!id) break;
      const act: ActiveJob = { abort: new AbortController(), done: Promise.resolve() };
      this.running.set(id, act);
      act.done = this.run(id, act).finally(() => {
        this.running.delete(id);
        this.pump();
      });
    }
  }
}
