import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import tar from "tar-stream";
import type { JobEvent } from "./api";
import type { JobManager } from "./jobs";

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
  const pack = tar.pack();
  const out = coalesce(pack as unknown as Readable);
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
    pack.entry({ name: `${prefix}/${rel}`, mode: 0o644 }, body);
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
        if (!sent.has(r)) pack.entry({ name: `${prefix}/${r}/`, type: "directory", mode: 0o755 });
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
      pack.finalize();
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

  pack.entry({ name: `${prefix}/`, type: "directory", mode: 0o755 });
  if (opts.follow) {
    jobs.on("event", onEvent);
    tick = setInterval(() => {
      if (!batch) look();
    }, SAFETY_TICK_MS);
  }
  look();
  return {
    stream: out,
    close: () => {
      if (closed) return;
      stop();
      pack.destroy();
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
 * The tar's bytes as few large chunks: a batch of files comes out of the packer as
 * three chunks each (header, body, padding); written one by one, each would be a
 * syscall and a wake-up of the reader. What one turn of the event loop produced
 * leaves as one chunk.
 */
function coalesce(source: Readable): Readable {
  const out = new PassThrough();
  let pending: Buffer[] = [];
  let bytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0 || out.destroyed) return;
    out.write(pending.length === 1 ? pending[0] : Buffer.concat(pending));
    pending = [];
    bytes = 0;
  };
  source.on("data", (c: Buffer) => {
    pending.push(c);
    bytes += c.length;
    if (bytes >= COALESCE_MAX) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  source.on("end", () => {
    flush();
    out.end();
  });
  source.on("error", (e) => out.destroy(e));
  // A packer destroyed before its end (the client went away) takes the output with it.
  source.on("close", () => {
    if (!out.writableEnded) out.destroy();
  });
  out.on("close", () => source.destroy());
  return out;
}
