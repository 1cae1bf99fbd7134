import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { keyUnder, type S3Location } from "../../runs/object-store/location";
import { type JobEvent, TERMINAL_STATES } from "../api";
import type { JobManager } from "../jobs/jobs";
import { mergedRunDir } from "../jobs/merge";

/** Written in a job's folder once its run is in the store: the store's URL of it. */
export const ARCHIVED_FILE = "archived.json";

/**
 * Copies each finished job's run folder (completed, failed or cancelled) into an
 * S3-compatible store, at `prefix/<run id>/`, one job after another. A job whose upload
 * did not finish (the runner was killed, the store did not answer) is taken up again at
 * the next start; files already in the store with the same content hash are not sent again.
 */
export class RunArchive {
  private chain: Promise<void> = Promise.resolve();
  private readonly pending = new Set<string>();

  constructor(
    private readonly jobs: JobManager,
    private readonly store: S3Location,
    private readonly log: (line: string) => void,
  ) {
    jobs.on("event", (id: string, ev: JobEvent) => {
      if (ev.type === "state" && TERMINAL_STATES.includes(ev.state)) this.enqueue(id);
    });
  }

  /** Queues every finished job not archived yet (after a restart). */
  sweep(): void {
    for (const j of this.jobs.list()) if (TERMINAL_STATES.includes(j.state) && !this.archivedUrl(j.id)) this.enqueue(j.id);
  }

  /** Resolves once everything queued so far has been tried. */
  idle(): Promise<void> {
    return this.chain;
  }

  archivedUrl(jobId: string): string | undefined {
    const f = path.join(this.jobs.jobDir(jobId), ARCHIVED_FILE);
    if (!existsSync(f)) return undefined;
    try {
      return (JSON.parse(readFileSync(f, "utf8")) as { url?: string }).url;
    } catch {
      return undefined;
    }
  }

  private enqueue(jobId: string): void {
    if (this.pending.has(jobId)) return;
    this.pending.add(jobId);
    this.chain = this.chain.then(() => this.archive(jobId).finally(() => this.pending.delete(jobId)));
  }

  private async archive(jobId: string): Promise<void> {
    const job = this.jobs.get(jobId);
    const dir = mergedRunDir(this.jobs.jobDir(jobId));
    if (!job || !existsSync(dir)) return;
    try {
      // Loaded on first use: a runner without a store never loads the SDK.
      const [{ s3ClientFromEnv }, { uploadFolder }] = await Promise.all([
        import("../../runs/object-store/client"),
        import("../../runs/object-store/upload-folder"),
      ]);
      const client = s3ClientFromEnv();
      try {
        const r = await uploadFolder(client, dir, { bucket: this.store.bucket, prefix: keyUnder(this.store.prefix, job.run_id) });
        writeFileSync(
          path.join(this.jobs.jobDir(jobId), ARCHIVED_FILE),
          `${JSON.stringify({ url: r.url, at: new Date().toISOString() })}\n`,
        );
        this.log(`job ${jobId}: run uploaded to ${r.url} (${r.uploaded.length} files sent, ${r.skipped.length} already there)`);
      } finally {
        client.destroy();
      }
    } catch (e) {
      this.log(`job ${jobId}: uploading its run failed (tried again at the next start): ${(e as Error).message}`);
    }
  }
}
