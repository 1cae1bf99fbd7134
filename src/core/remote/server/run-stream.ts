import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type { JobEvent } from "../api";
import type { JobManager } from "../jobs/jobs";
import { TarOut } from "../bundle/tar-out";

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
  const s = new RunFolderStream(jobs, id, prefix, opts.follow);
  s.start();
  return { stream: s.out.stream, close: () => s.close() };
}

/** The files left to send once the job has ended (or for a snapshot), and how far the sending got. */
interface Rest {
  dir: string;
  files: Array<{ rel: string; size: number }>;
  at: number;
}

/** One pull of a run folder: what was sent, and the timers and listener that drive the next look. */
class RunFolderStream {
  readonly out = new TarOut();
  private readonly mtime = Math.floor(Date.now() / 1000);
  /** Path inside the run folder → bytes sent (-1: a folder). */
  private readonly sent = new Map<string, number>();
  /** Rollout files sent once their trajectory had ended: they never change, and the last look skips them unread. */
  private readonly sentFinal = new Set<string>();
  private closed = false;
  private batch: NodeJS.Timeout | undefined;
  private tick: NodeJS.Timeout | undefined;
  /** The last send (the job has ended, or a snapshot). */
  private rest: Rest | undefined;
  private waitingDrain = false;
  private readonly onEvent = (jobId: string, ev: JobEvent): void => this.onJobEvent(jobId, ev);

  constructor(
    private readonly jobs: JobManager,
    private readonly id: string,
    private readonly prefix: string,
    private readonly follow: boolean,
  ) {}

  start(): void {
    this.out.directory(this.prefix, this.mtime);
    if (this.follow) {
      this.jobs.on("event", this.onEvent);
      this.tick = setInterval(() => {
        if (!this.batch) this.look();
      }, SAFETY_TICK_MS);
    }
    this.look();
    this.out.stream.on("close", () => this.stop()); // the client went away
  }

  close(): void {
    if (this.closed) return;
    this.stop();
    this.out.stream.destroy();
  }

  /** Sends the file unless it was sent at this size; false when it is gone (an interrupted rollout dropped from the merge). */
  private sendFile(dir: string, rel: string, size?: number): boolean {
    const before = this.sent.get(rel);
    if (size !== undefined && before === size) return true;
    // Read whole into the tar: a growing file cannot change size between header and body.
    const now = this.out.file(`${this.prefix}/${rel}`, `${dir}/${rel}`, this.mtime, before);
    if (now === undefined) return false;
    this.sent.set(rel, now);
    return true;
  }

  /**
   * Every file of the folder not yet sent as it is now, listed into `into` (folders go out
   * at once: a header each) to be sent as the puller takes them.
   */
  private listRest(dir: string, rel: string, into: Rest["files"]): void {
    let names: string[];
    try {
      names = readdirSync(rel ? path.join(dir, rel) : dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (rel === "rollouts" && this.sentFinal.has(name)) continue;
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
        if (!this.sent.has(r)) this.out.directory(`${this.prefix}/${r}`, this.mtime);
        this.sent.set(r, -1);
        this.listRest(dir, r, into);
      } else if (st.isFile() && this.sent.get(r) !== st.size) into.push({ rel: r, size: st.size });
    }
  }

  /**
   * True while more than BACKLOG_BYTES wait to go out, with a look set for when they have:
   * a puller slower than the run (or a snapshot of a big folder) must not make the runner
   * hold the run folder in memory.
   */
  private backlogged(): boolean {
    if (this.out.backlog() <= BACKLOG_BYTES) return false;
    if (!this.waitingDrain) {
      this.waitingDrain = true;
      this.out.stream.once("drain", () => {
        this.waitingDrain = false;
        if (!this.batch) this.look();
      });
    }
    return true;
  }

  private sendRest(rest: Rest): void {
    for (; rest.at < rest.files.length; rest.at++) {
      if (this.backlogged()) return;
      const f = rest.files[rest.at];
      if (f) this.sendFile(rest.dir, f.rel, f.size);
    }
    this.stop();
    this.out.end();
  }

  private stop(): void {
    this.closed = true;
    if (this.batch) clearTimeout(this.batch);
    if (this.tick) clearInterval(this.tick);
    this.jobs.off("event", this.onEvent);
  }

  private look(): void {
    this.batch = undefined;
    if (this.closed || this.backlogged()) return;
    if (this.rest) {
      this.sendRest(this.rest);
      return;
    }
    const view = this.jobs.runView(this.id, { fresh: !this.follow });
    if (!view?.live || !this.follow) {
      this.rest = { dir: view?.dir ?? "", files: [], at: 0 };
      if (view) this.listRest(view.dir, "", this.rest.files);
      this.sendRest(this.rest);
      return;
    }
    this.sendFinished(view.dir, view.finished);
  }

  /** Rollouts whose trajectory has ended since the last look, each once. */
  private sendFinished(dir: string, finished: Iterable<string>): void {
    for (const name of finished) {
      if (this.sentFinal.has(name)) continue;
      if (this.backlogged()) return;
      if (this.sendFile(dir, `rollouts/${name}`)) this.sentFinal.add(name);
    }
  }

  private onJobEvent(jobId: string, ev: JobEvent): void {
    if (jobId !== this.id || this.closed) return;
    // The job's end is sent at once; rollout ends wait for their batch.
    if (ev.type === "state") {
      if (this.batch) clearTimeout(this.batch);
      this.batch = setTimeout(() => this.look(), 0);
    } else if (ev.type === "rollout-end" && !this.batch) this.batch = setTimeout(() => this.look(), BATCH_MS);
  }
}

/** True when `p` resolves to a place inside the job folder that holds the run folder `runDir`. */
function insideJob(runDir: string, p: string): boolean {
  const job = realpathSync(path.dirname(runDir));
  return realpathSync(p).startsWith(`${job}${path.sep}`);
}
