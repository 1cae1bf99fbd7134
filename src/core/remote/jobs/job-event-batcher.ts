import type { JobEvent, JobEventInput } from "../api";
import type { JobJournal } from "./journal";

/**
 * Journals job events, then hands them to a listener. The events of one turn of the event
 * loop (a watcher pass, or a batch of `rlenv run` progress lines, ends many rollouts) are
 * journalled in one write per job at the end of the turn, and the SSE streams send them in
 * one write too: a write each was a good part of the runner's CPU. The listener hears an
 * event only once it is in the journal, so a runner killed in between never sent an id that
 * it would hand out again.
 */
export class JobEventBatcher {
  private pending: Array<{ id: string; input: JobEventInput }> = [];
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    private readonly journal: JobJournal,
    private readonly deliver: (jobId: string, event: JobEvent) => void,
  ) {}

  /** Queues an event for the end of this turn of the event loop. */
  add(id: string, input: JobEventInput): void {
    this.pending.push({ id, input });
    this.immediate ??= setImmediate(() => this.flush());
  }

  /** Journals and delivers every queued event now (a reader of the journal must miss none). */
  flush(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    if (this.pending.length === 0) return;
    const byJob = new Map<string, JobEventInput[]>();
    for (const { id, input } of this.pending) {
      const list = byJob.get(id);
      if (list) list.push(input);
      else byJob.set(id, [input]);
    }
    this.pending = [];
    const written = [...byJob].map(([id, inputs]) => [id, this.journal.appendAll(id, inputs)] as const);
    for (const [id, events] of written) for (const ev of events) this.deliver(id, ev);
  }
}
