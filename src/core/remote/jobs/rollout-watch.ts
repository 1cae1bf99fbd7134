import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import path from "node:path";
import type { RolloutEnd } from "../api";
import type { PushedRolloutEnd } from "../progress-line";

/** What the watcher knows of one rollout file. */
export interface RolloutFileState {
  unit: string;
  /** Absolute path. */
  file: string;
  /** Its folder and name (the parts of `file`, kept so a merge every few ms splits no paths). */
  dir: string;
  name: string;
  /** Path inside the unit's run folder, e.g. `rollouts/abc.jsonl`. */
  rel: string;
  task?: string;
  sample?: number;
  end?: { status: string; reward: number | null };
}

/** Rollout ends that count as done work: a resumed job does not redo them. */
export function isFinished(status: string): boolean {
  return status !== "cancelled";
}

/** A followed rollout file whose trajectory has ended as done work (it no longer changes). */
export function hasFinished(r: RolloutFileState): boolean {
  return r.end !== undefined && isFinished(r.end.status);
}

/**
 * Follows the trajectories that `rlenv run` processes write under each unit's runs
 * folder (local disk or a cluster's shared folder alike) by reading what each file
 * gained since the last look. Polling, not fs.watch: it also works on NFS, and a
 * 50 ms tick keeps rollout-end events well under the 100 ms latency goal.
 */
export class RolloutWatcher {
  private readonly files = new Map<string, RolloutFileState & { offset: number; partial: string }>();
  /** Per rollouts folder, its files by name: a pass looks each name up without building its path. */
  private readonly byDir = new Map<string, Map<string, RolloutFileState & { offset: number; partial: string }>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly units: () => Array<{ id: string; dir: string }>,
    private readonly onEnd: (end: RolloutEnd, state: RolloutFileState) => void,
    /** 0: no polling, the writer reports its ends through `noteEnd` (a scan at start and stop still runs). */
    private readonly intervalMs = 50,
  ) {}

  start(): void {
    this.scan();
    if (this.intervalMs > 0) this.timer = setInterval(() => this.scan(), this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.scan();
  }

  all(): RolloutFileState[] {
    return [...this.files.values()];
  }

  /**
   * A rollout end learnt from the process that wrote it (the local executor reads
   * `rlenv run`'s progress lines): no file is read for it, and scans skip the file.
   */
  noteEnd(unit: string, end: PushedRolloutEnd): void {
    // `rlenv run` reports the absolute, clean path it was given (--runs): taken as it is.
    const clean = isCleanAbsolute(end.file);
    const file = clean ? end.file : path.resolve(end.file);
    const dir = clean ? file.slice(0, file.lastIndexOf("/")) : path.dirname(file);
    const name = clean ? file.slice(dir.length + 1) : path.basename(file);
    let known = this.byDir.get(dir);
    if (!known) {
      known = new Map();
      this.byDir.set(dir, known);
    }
    let st = this.files.get(file);
    if (st?.end) return;
    if (!st) {
      st = { unit, file, dir, name, rel: `rollouts/${name}`, offset: 0, partial: "" };
      this.files.set(file, st);
      known.set(name, st);
    }
    st.task = end.task;
    st.sample = end.sample;
    st.end = { status: end.status, reward: end.reward };
    this.onEnd({ task: end.task, sample: end.sample, status: end.status, reward: end.reward, file: st.rel, unit }, st);
  }

  /** One pass over every unit's rollout files; public so a final pass can be forced. */
  scan(): void {
    for (const unit of this.units()) {
      for (const runDir of listDirs(unit.dir)) {
        // Absolute, as `noteEnd` keys its files: a relative data dir must not make two names for one file.
        const rolloutsDir = path.resolve(unit.dir, runDir, "rollouts");
        if (!existsSync(rolloutsDir)) continue;
        let names: string[];
        try {
          names = readdirSync(rolloutsDir);
        } catch {
          continue;
        }
        let known = this.byDir.get(rolloutsDir);
        if (!known) {
          known = new Map();
          this.byDir.set(rolloutsDir, known);
        }
        // This runs for every file on every tick: ended files cost one lookup, nothing else.
        for (const name of names) {
          let st = known.get(name);
          if (st?.end) continue;
          if (!st) {
            if (!name.endsWith(".jsonl")) continue;
            const file = `${rolloutsDir}/${name}`;
            st = { unit: unit.id, file, dir: rolloutsDir, name, rel: `rollouts/${name}`, offset: 0, partial: "" };
            this.files.set(file, st);
            known.set(name, st);
          }
          this.readNew(st);
        }
      }
    }
  }

  private readNew(st: RolloutFileState & { offset: number; partial: string }): void {
    let size: number;
    try {
      size = statSync(st.file).size;
    } catch {
      return;
    }
    if (size <= st.offset) return;
    const fd = openSync(st.file, "r");
    try {
      const buf = Buffer.alloc(size - st.offset);
      readSync(fd, buf, 0, buf.length, st.offset);
      st.offset = size;
      const text = st.partial + buf.toString("utf8");
      const lines = text.split("\n");
      st.partial = lines.pop() ?? "";
      for (const line of lines) this.onLine(st, line);
    } finally {
      closeSync(fd);
    }
  }

  private onLine(st: RolloutFileState, line: string): void {
    if (!line.includes('"type":"start"') && !line.includes('"type":"end"')) return;
    let ev: { type?: string; task?: { id?: string }; sample?: number; status?: string; reward?: number | null };
    try {
      ev = JSON.parse(line);
    } catch {
      return;
    }
    if (ev.type === "start") {
      st.task = ev.task?.id;
      st.sample = ev.sample;
    } else if (ev.type === "end" && typeof ev.status === "string") {
      st.end = { status: ev.status, reward: typeof ev.reward === "number" ? ev.reward : null };
      this.onEnd(
        { task: st.task ?? "?", sample: st.sample ?? 0, status: ev.status, reward: st.end.reward, file: st.rel, unit: st.unit },
        st,
      );
    }
  }
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/** An absolute POSIX path below the root, with no "." or ".." segment and no doubled or trailing slash (path.resolve would leave it as it is). */
function isCleanAbsolute(p: string): boolean {
  return (
    p.startsWith("/") &&
    p.lastIndexOf("/") > 0 &&
    !p.endsWith("/") &&
    !p.includes("//") &&
    !p.includes("/./") &&
    !p.includes("/../") &&
    !p.endsWith("/.") &&
    !p.endsWith("/..")
  );
}
