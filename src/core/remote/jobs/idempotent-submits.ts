import type { Readable } from "node:stream";
import type { JobRecord } from "../api";

export interface Submitted {
  job: JobRecord;
  created: boolean;
}

/**
 * Submits under an idempotency key: a key seen before returns its first job, and a key whose
 * first upload is still being accepted waits for that one, so a client's retry never makes a
 * second job. The retried upload is read to its end and dropped.
 */
export class IdempotentSubmits {
  private readonly byKey = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<Submitted>>();

  /** Records the job a key made (at start-up, from the journal; and when a keyed submit is accepted). */
  remember(key: string, jobId: string): void {
    this.byKey.set(key, jobId);
  }

  async submit(
    key: string | undefined,
    body: Readable,
    find: (jobId: string) => JobRecord | undefined,
    accept: () => Promise<Submitted>,
  ): Promise<Submitted> {
    if (!key) return accept();
    const known = this.byKey.get(key);
    const job = known ? find(known) : undefined;
    if (job) {
      await uploaded(body);
      return { job, created: false };
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      await uploaded(body);
      return pending;
    }
    const p = accept();
    this.inFlight.set(key, p);
    try {
      return await p;
    } finally {
      this.inFlight.delete(key);
    }
  }
}

/**
 * Reads a retried upload to its end without keeping it. Answering before the client has
 * sent it all would close the connection under its writes (EPIPE on the client's side).
 */
function uploaded(body: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) return resolve();
    body.once("end", resolve);
    body.once("error", () => resolve());
    body.once("close", resolve);
    body.resume();
  });
}
