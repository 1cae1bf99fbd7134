import type { Readable } from "node:stream";
import type Docker from "dockerode";

/** How a sandbox container came to stop, as the engine's event stream saw it. */
export type ExitCause =
  /** Its agent died of a signal that neither the engine nor the kernel's OOM killer sent: a process in the sandbox killed it. */
  | "inside"
  /** The engine killed it (docker kill / stop / rm -f, a daemon shutting down) or the OOM killer did, or the agent exited by itself. */
  | "outside"
  /** The stream was not watching the whole life of the container, or its end was not seen: nothing can be said. */
  | "unknown";

interface Seen {
  /** The stream's generation when the container was registered: a reconnect since leaves a gap. */
  generation: number;
  killed: boolean;
  oom: boolean;
  exitCode?: number;
  waiters: Array<() => void>;
}

/**
 * Watches the engine's container events for this process's sandboxes (one stream per engine),
 * so that when a sandbox's agent dies the cause can be told: a signal from the engine or the
 * OOM killer is the machinery's (an infra error), a signal nobody outside sent came from a
 * command run in the sandbox, as the same user as the agent (the agent's commands can kill
 * it): the rollout's own doing, not to be retried and kept out of the scores as infra would be.
 * Anything uncertain (the stream down at some point of the container's life, its death not
 * seen) is "unknown", which callers treat as infra.
 */
export class ExitWitness {
  private readonly seen = new Map<string, Seen>();
  private generation = 0;
  private live: Promise<boolean> | null = null;
  private stream: Readable | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly labels: string[],
  ) {}

  /** Registers a container before it starts; false when the stream could not be opened (then its verdict is "unknown"). */
  async track(id: string): Promise<boolean> {
    const up = await this.connect();
    if (up) this.seen.set(id, { generation: this.generation, killed: false, oom: false, waiters: [] });
    return up;
  }

  /** Why container `id` stopped, waiting up to `waitMs` for its death to show in the stream. */
  async cause(id: string, waitMs = 2000): Promise<ExitCause> {
    const s = this.seen.get(id);
    if (!s) return "unknown";
    if (s.exitCode === undefined)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        s.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    if (s.generation !== this.generation || s.exitCode === undefined) return "unknown";
    if (s.killed || s.oom) return "outside";
    // 128 + signal: the agent died of a signal. Any other status is its own exit (a closed stdin is 0).
    return s.exitCode > 128 ? "inside" : "outside";
  }

  /** Forgets a container once its sandbox is gone for good. */
  forget(id: string): void {
    this.seen.delete(id);
  }

  close(): void {
    this.stream?.destroy();
    this.stream = null;
    this.live = null;
  }

  private connect(): Promise<boolean> {
    this.live ??= (async () => {
      try {
        const stream = (await this.docker.getEvents({
          filters: { type: ["container"], event: ["kill", "oom", "die"], label: this.labels },
        })) as unknown as Readable;
        this.stream = stream;
        this.generation++;
        // A witness never keeps the process alive: a CLI exits when its work is done.
        (stream as unknown as { socket?: { unref?: () => void } }).socket?.unref?.();
        let buf = "";
        stream.on("data", (chunk: Buffer) => {
          buf += chunk.toString("utf8");
          let nl = buf.indexOf("\n");
          while (nl >= 0) {
            this.record(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
            nl = buf.indexOf("\n");
          }
        });
        const down = () => {
          // A gap in what was seen: every container registered so far gets "unknown"; the next track reconnects.
          this.generation++;
          this.live = null;
          this.stream = null;
        };
        stream.on("end", down);
        stream.on("error", down);
        stream.on("close", down);
        return true;
      } catch {
        this.live = null;
        return false;
      }
    })();
    return this.live;
  }

  private record(line: string): void {
    let e: { Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      return;
    }
    const s = e.Actor?.ID ? this.seen.get(e.Actor.ID) : undefined;
    if (!s) return;
    if (e.Action === "kill") s.killed = true;
    else if (e.Action === "oom") s.oom = true;
    else if (e.Action === "die") {
      s.exitCode = Number(e.Actor?.Attributes?.exitCode ?? Number.NaN);
      for (const w of s.waiters.splice(0)) w();
    }
  }
}

const witnesses = new WeakMap<Docker, ExitWitness>();

/** The one witness of an engine's events for this process's sandboxes. */
export function exitWitness(docker: Docker, labels: string[]): ExitWitness {
  let w = witnesses.get(docker);
  if (!w) {
    w = new ExitWitness(docker, labels);
    witnesses.set(docker, w);
  }
  return w;
}
