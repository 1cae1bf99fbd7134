import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type { JobEvent } from "./api";
import type { JobManager } from "./jobs";
import { TarOut } from "./tar-out";

/**
 * Rollout ends gathered into one batch: a merge per rollout would cost more than the
 * sending. Short, so that when the job ends little is left to send: that rest is the
 * wait between the job's end and the pull's.
 */
const BATCH_MS = 25;
/** Bytes that may wait for a slow puller before the stream stops reading files for it. */
const BACKLOG_BYTES = 4 * 1024 * 1024;
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
export function streamRunFolder(
  jobs: JobManager,
  id: string,
  prefix: string,
  opts: { follow: boolean },
): { stream: Readable; close(): void } {
  const out = new TarOut();
  const mtime = Math.floor(Date.now() / 1000);
  /** Path inside the run folder → bytes sent (-1: a folder). */
  const sent = new Map<string, number>();
  /** Rollout files sent once their trajectory had ended: they never change, and the last look skips them unread. */
  const sentFinal = new Set<string>();
  let closed = false;
  let batch: NodeJS.Timeout | undefined;
  let tick: NodeJS.Timeout | undefined;

  /** Sends the file unless it was sent at this size; false when it is gone (an interrupted rollout dropped from the merge). */
  const sendFile = (dir: string, rel: string, size?: number): boolean => {
    const before = sent.get(rel);
    if (size !== undefined && before === size) return true;
    // Read whole into the tar: a growing file cannot change size between header and body.
    const now = out.file(`${prefix}/${rel}`, `${dir}/${rel}`, mtime, before);
    if (now === undefined) return false;
    sent.set(rel, now);
    return true;
  };

  /**
   * Every file of the folder not yet sent as it is now, listed into `into` (folders go out
   * at once: a header each) to be sent as the puller takes them.
   */
  const listRest = (dir: string, rel: string, into: Array<{ rel: string; size: number }>): void => {
    let names: string[];
    try {
      names = readdirSync(rel ? path.join(dir, rel) : dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (rel === "rollouts" && sentFinal.has(name)) continue;
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
        listRest(dir, r, into);
      } else if (st.isFile() && sent.get(r) !== st.size) into.push({ rel: r, size: st.size });
    }
  };

  /** The last send (the job has ended, or a snapshot): its files, and how far it got. */
  let rest: { dir: string; files: Array<{ rel: string; size: number }>; at: number } | undefined;
  let waitingDrain = false;

  /**
   * True while more than BACKLOG_BYTES wait to go out, with a look set for when they have:
   * a puller slower than the run (or a snapshot of a big folder) must not make the runner
   * hold the run folder in memory.
   */
  const backlogged = (): boolean => {
    if (out.backlog() <= BACKLOG_BYTES) return false;
    if (!waitingDrain) {
      waitingDrain = true;
      out.stream.once("drain", () => {
        waitingDrain = false;
        if (!batch) look();
      });
    }
    return true;
  };

  const sendRest = (): void => {
    if (!rest) return;
    for (; rest.at < rest.files.length; rest.at++) {
      if (backlogged()) return;
      const f = rest.files[rest.at];
      if (f) sendFile(rest.dir, f.rel, f.size);
    }
    stop();
    out.end();
  };

  const stop = (): void => {
    closed = true;
    if (batch) clearTimeout(batch);
    if (tick) clearInterval(tick);
    jobs.off("event", onEvent);
  };

  const look = (): void => {
    batch = undefined;
    if (closed || backlogged()) return;
    if (rest) {
      sendRest();
      return;
    }
    const view = jobs.runView(id, { fresh: !opts.follow });
    if (!view?.live || !opts.follow) {
      rest = { dir: view?.dir ?? "", files: [], at: 0 };
      if (view) listRest(view.dir, "", rest.files);
      sendRest();
      return;
    }
    for (const name of view.finished) {
      if (sentFinal.has(name)) continue;
      if (backlogged()) return;
      if (sendFile(view.dir, `rollouts/${name}`)) sentFinal.add(name);
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
