import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import type { JobEvent } from "./api";
import type { JobManager } from "./jobs";
import { TAR_END, tarHeader, tarPadding } from "./tar-writer";

/** Rollout ends gathered into one batch: a merge per rollout would cost more than the sending. */
const BATCH_MS = 100;
/** A look even without events, so a job that stops changing without one cannot hang a follower. */
const SAFETY_TICK_MS = 2000;

/**
 * `GET /v1/jobs/:id/run`: the job's run folder as a tar. With `follow` the tar grows
 * while the job runs and ends when the job does: each rollout goes out once, as soon as
 * its trajectory has ended (from then on it never changes), so when the job ends only
 * the rest moves — run.json, summary.json and rollouts that never ended. Without
 * `follow` it is a snapshot of the folder as it is now (files that are still growing
 * as read at that moment). A follower that loses the stream follows again from the
 * start: files are written whole, so a file sent twice is simply overwritten.
 */
export function streamRunFolder(jobs: JobManager, id: string, prefix: string, opts: { follow: boolean }): { stream: Readable; close(): void } {
  const out = new TarOut();
  const mtime = Math.floor(Date.now() / 1000);
  /** Path inside the run folder → bytes sent (-1: a folder). */
  const sent = new Map<string, number>();
  let closed = false;
  let batch: NodeJS.Timeout | undefined;
  let tick: NodeJS.Timeout | undefined;

  const sendFile = (dir: string, rel: string, size?: number): void => {
    if (size !== undefined && sent.get(rel) === size) return;
    let body: Buffer;
    try {
      // Read whole: a growing file must not change size between the tar header and its body.
      body = readFileSync(path.join(dir, rel));
    } catch {
      return; // gone since the listing (an interrupted rollout dropped from the merge)
    }
    if (sent.get(rel) === body.length) return;
    out.file(`${prefix}/${rel}`, body, mtime);
    sent.set(rel, body.length);
  };

  /** Every file of the folder not yet sent as it is now. */
  const sendRest = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(rel ? path.join(dir, rel) : dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(path.join(dir, r));
        // The merged rollouts folder can be a link to the one unit's own (see merge.ts): followed
        // when it stays inside the job's folder, as only the runner's own links do.
        if (st.isSymbolicLink() && insideJob(dir, path.join(dir, r))) st = statSync(path.join(dir, r));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!sent.has(r)) out.directory(`${prefix}/${r}`, mtime);
        sent.set(r, -1);
        sendRest(dir, r);
      } else if (st.isFile()) sendFile(dir, r, st.size);
    }
  };

  const stop = (): void => {
    closed = true;
    if (batch) clearTimeout(batch);
    if (tick) clearInterval(tick);
    jobs.off("event", onEvent);
  };

  const look = (): void => {
    batch = undefined;
    if (closed) return;
    const view = jobs.runView(id, { fresh: !opts.follow });
    if (!view?.live || !opts.follow) {
      if (view) sendRest(view.dir, "");
      stop();
      out.end();
      return;
    }
    for (const name of view.finished) {
      const rel = `rollouts/${name}`;
      if (!sent.has(rel)) sendFile(view.dir, rel);
    }
  };

  function onEvent(jobId: string, ev: JobEvent): void {
    if (jobId !== id || closed) return;
    // The job's end is sent at once; rollout ends wait for their batch.
    if (ev.type === "state") {
      if (batch) clearTimeout(batch);
      batch = setTimeout(look, 0);
    } else if (ev.type === "rollout-end" && !batch) batch = setTimeout(look, BATCH_MS);
  }

  out.directory(prefix, mtime);
  if (opts.follow) {
    jobs.on("event", onEvent);
    tick = setInterval(() => {
      if (!batch) look();
    }, SAFETY_TICK_MS);
  }
  look();
  out.stream.on("close", stop); // the client went away
  return {
    stream: out.stream,
    close: () => {
      if (closed) return;
      stop();
      out.stream.destroy();
    },
  };
}

/** True when `p` resolves to a place inside the job folder that holds the run folder `runDir`. */
function insideJob(runDir: string, p: string): boolean {
  const job = realpathSync(path.dirname(runDir));
  return realpathSync(p).startsWith(`${job}${path.sep}`);
}

/** Bytes gathered before they are written even within one turn of the event loop. */
const COALESCE_MAX = 1024 * 1024;

/**
 * The tar as it is made: each entry is a header, its body and padding (see tar-writer.ts),
 * and what one turn of the event loop adds leaves as one chunk, not three writes (and
 * three wake-ups of the reader) a file.
 */
class TarOut {
  readonly stream = new PassThrough();
  private pending: Buffer[] = [];
  private bytes = 0;
  private scheduled = false;

  file(name: string, body: Buffer, mtime: number): void {
    this.add(tarHeader({ name, type: "file", size: body.length, mode: 0o644, mtime }), body, tarPadding(body.length));
  }

  directory(name: string, mtime: number): void {
    this.add(tarHeader({ name, type: "directory", size: 0, mode: 0o755, mtime }));
  }

  end(): void {
    this.add(TAR_END);
    this.flush();
    if (!this.stream.destroyed) this.stream.end();
  }

  private add(...parts: Buffer[]): void {
    if (this.stream.destroyed) return;
    for (const p of parts) {
      if (p.length === 0) continue;
      this.pending.push(p);
      this.bytes += p.length;
    }
    if (this.bytes >= COALESCE_MAX) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.stream.destroyed) return;
    this.stream.write(this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.bytes));
    this.pending = [];
    this.bytes = 0;
  }
}
