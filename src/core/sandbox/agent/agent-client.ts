import type { Duplex, Readable, Writable } from "node:stream";

/** One answer of the agent (see agent.py); fields depend on the request. */
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
  /** The ready line: the agent's pid as the sandbox sees it. */
  pid?: number;
}

/**
 * Talks to the agent: requests as JSON lines on its stdin, replies as JSON lines on its stdout.
 * The agent's own stderr is kept for error messages. Two ways in: a docker container's one
 * attached stream (stdout and stderr multiplexed, see dockerAgentClient), or a child process's
 * own pipes (the process backend, see pipedAgentClient).
 */
export class AgentClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: AgentReply) => void; reject: (e: Error) => void }>();
  private line = "";
  private stderrTail = "";
  private closedWith: Error | null = null;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  readonly ready: Promise<void>;
  /** The agent's pid inside the sandbox (its ready line said), so that a kill from outside can spare it; null until ready. */
  agentPid: number | null = null;

  /**
   * @param input the agent's stdin; feed its output through stdout(), stderr() and ended().
   * @param release what close() does besides ending the input (the docker stream is destroyed).
   */
  constructor(
    private readonly input: Writable,
    private readonly release: () => void = () => {},
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    this.ready.catch(() => {}); // observed by whoever awaits it
    input.on("error", (e) => this.fail(e));
  }

  /** The agent's stdout went away: every request still waiting fails with `why` (or the agent's last words). */
  ended(why?: string): void {
    const tail = this.stderrTail.trim().slice(-500);
    this.fail(new Error(why ?? `the sandbox agent stopped${tail ? `: ${tail}` : ""}`));
  }

  /** The last of what the agent wrote on stderr (its traceback, a start-up failure). */
  get lastWords(): string {
    return this.stderrTail.trim().slice(-500);
  }

  stderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-4000);
  }

  stdout(text: string): void {
    this.onStdout(text);
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
        this.agentPid = typeof reply.pid === "number" ? reply.pid : null;
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
      this.input.write(`${JSON.stringify({ ...msg, id })}\n`);
    });
  }

  close(): void {
    this.fail(new Error("sandbox closed"));
    this.input.end();
    this.release();
  }
}

/**
 * A client over a container's attached stream: the engine multiplexes the agent's stdout and
 * stderr into frames (8-byte header: stream type, 3 zero bytes, big-endian length).
 */
export function dockerAgentClient(stream: Duplex): AgentClient {
  const client = new AgentClient(stream, () => stream.destroy());
  let frames: Buffer = Buffer.alloc(0);
  stream.on("data", (chunk: Buffer) => {
    frames = frames.length ? Buffer.concat([frames, chunk]) : chunk;
    while (frames.length >= 8) {
      const size = frames.readUInt32BE(4);
      if (frames.length < 8 + size) break;
      const type = frames[0];
      const body = frames.subarray(8, 8 + size).toString("utf8");
      frames = frames.subarray(8 + size);
      if (type === 2) client.stderr(body);
      else client.stdout(body);
    }
  });
  const end = () => client.ended();
  stream.on("end", end);
  stream.on("close", end);
  stream.on("error", (e) => client.ended(e.message));
  return client;
}

/** A client over a child process's own pipes. `ended` is left to the caller, who knows how the process ended. */
export function pipedAgentClient(stdin: Writable, stdout: Readable, stderr: Readable): AgentClient {
  const client = new AgentClient(stdin);
  stdout.setEncoding("utf8");
  stderr.setEncoding("utf8");
  stdout.on("data", (t: string) => client.stdout(t));
  stderr.on("data", (t: string) => client.stderr(t));
  return client;
}
