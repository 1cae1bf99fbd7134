import type { Duplex } from "node:stream";

/** One answer of the agent (see agent-source.ts); fields depend on the request. */
export interface AgentReply {
  id: number;
  error?: string;
  ok?: boolean;
  ready?: boolean;
  exit?: number | null;
  signal?: number | null;
  stdout?: string;
  stderr?: string;
  total?: number;
  ending?: "timeout" | "killed" | null;
  oom?: boolean;
  pids_hit?: boolean;
  ms?: number;
  files?: Record<string, string | null>;
  /** put, or exec with files: the files were refused (the error says why), not an agent failure. */
  refused?: boolean;
  /** wipe: what could not be removed (processes, files, IPC objects). */
  left?: string[];
}

/**
 * Talks to the agent over the container's one attached stream: requests as JSON lines on
 * stdin; replies parsed from the multiplexed stdout frames (8-byte header: stream type,
 * 3 zero bytes, big-endian length). The agent's own stderr is kept for error messages.
 */
export class AgentClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: AgentReply) => void; reject: (e: Error) => void }>();
  private frames: Buffer = Buffer.alloc(0);
  private line = "";
  private stderrTail = "";
  private closedWith: Error | null = null;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  readonly ready: Promise<void>;

  constructor(private readonly stream: Duplex) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    this.ready.catch(() => {}); // observed by whoever awaits it
    stream.on("data", (c: Buffer) => this.onData(c));
    const end = () => this.fail(new Error(`the sandbox agent stopped${this.stderrTail ? `: ${this.stderrTail.trim().slice(-500)}` : ""}`));
    stream.on("end", end);
    stream.on("close", end);
    stream.on("error", (e) => this.fail(e));
  }

  private onData(chunk: Buffer): void {
    this.frames = this.frames.length ? Buffer.concat([this.frames, chunk]) : chunk;
    while (this.frames.length >= 8) {
      const size = this.frames.readUInt32BE(4);
      if (this.frames.length < 8 + size) break;
      const type = this.frames[0];
      const body = this.frames.subarray(8, 8 + size).toString("utf8");
      this.frames = this.frames.subarray(8 + size);
      if (type === 2) this.stderrTail = (this.stderrTail + body).slice(-4000);
      else this.onStdout(body);
    }
  }

  private onStdout(text: string): void {
    this.line += text;
    let nl = this.line.indexOf("\n");
    while (nl >= 0) {
      const one = this.line.slice(0, nl);
      this.line = this.line.slice(nl + 1);
      nl = this.line.indexOf("\n");
      if (!one.trim()) continue;
      let reply: AgentReply;
      try {
        reply = JSON.parse(one) as AgentReply;
      } catch {
        continue; // not ours (nothing else writes here, but never let a stray line kill the client)
      }
      if (reply.id === 0 && reply.ready) {
        this.readyWaiter?.resolve();
        continue;
      }
      const p = this.pending.get(reply.id);
      if (!p) continue;
      this.pending.delete(reply.id);
      p.resolve(reply);
    }
  }

  private fail(e: Error): void {
    if (this.closedWith) return;
    this.closedWith = e;
    this.readyWaiter?.reject(e);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  get broken(): Error | null {
    return this.closedWith;
  }

  /** Sends one request; resolves with its reply. Returns the id through `onId` (for kill). */
  request(msg: Record<string, unknown>, onId?: (id: number) => void): Promise<AgentReply> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    onId?.(id);
    return new Promise<AgentReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.stream.write(`${JSON.stringify({ ...msg, id })}\n`);
    });
  }

  close(): void {
    this.fail(new Error("sandbox closed"));
    this.stream.end();
    this.stream.destroy();
  }
}
