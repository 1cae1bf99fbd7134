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
 * The agent's reply channel carried something the agent never writes: a second reply for a
 * request, a reply for a request never asked, a line that is not a reply, or a line longer than
 * any reply can be. Only a process inside the sandbox could have written it (the agent's
 * descriptors and memory are closed to the commands it runs, see agent.py's seal; this catches
 * what gets past that), so it is the model's doing: the sandbox is not trusted again and is
 * destroyed, the rollout scored 0 with this reason, not retried as an infrastructure error.
 */
export class ChannelTampered extends Error {
  constructor(what: string) {
    super(`the sandbox agent's reply channel was tampered with from inside the sandbox (${what}): nothing it answers is trusted`);
    this.name = "ChannelTampered";
  }
}

/** A reply to a request that names no larger allowance (ping, put, write, kill, wipe): generous for JSON with a few paths. */
export const SMALL_REPLY_CHARS = 1 << 20;

/** The most characters a reply line may take for a request whose payload is `bytes` (base64 and the JSON around it). */
export function replyAllowance(bytes: number): number {
  return SMALL_REPLY_CHARS + Math.ceil((bytes * 4) / 3) + 64;
}

/**
 * Talks to the agent: requests as JSON lines on its stdin, replies as JSON lines on its stdout.
 * The agent's own stderr is kept for error messages. Two ways in: a docker container's one
 * attached stream (stdout and stderr multiplexed, see dockerAgentClient), or a child process's
 * own pipes (the process backend, see pipedAgentClient).
 *
 * The channel is checked, not trusted: each request gets exactly one well-formed reply, and a
 * line may grow only as long as the largest reply a pending request allows; anything else is
 * a ChannelTampered (see there), which fails every request and breaks the client for good.
 */
export class AgentClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: AgentReply) => void; reject: (e: Error) => void; allowance: number }>();
  private line = "";
  private stderrTail = "";
  private closedWith: Error | null = null;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private sawReady = false;
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
    if (this.closedWith) return;
    this.line += text;
    let nl = this.line.indexOf("\n");
    while (nl >= 0 && !this.closedWith) {
      const one = this.line.slice(0, nl);
      this.line = this.line.slice(nl + 1);
      nl = this.line.indexOf("\n");
      this.take(one);
    }
    // A line still open may grow only to the largest reply a waiting request allows: a flood
    // with no newline must not grow the host's memory.
    if (!this.closedWith && this.line.length > this.longestAllowed())
      this.tampered(`a line of over ${this.longestAllowed()} characters with no end`);
    if (this.closedWith) this.line = "";
  }

  /** The most characters one reply line may have now: the largest allowance of the requests waiting. */
  longestAllowed(): number {
    let most = SMALL_REPLY_CHARS;
    for (const p of this.pending.values()) most = Math.max(most, p.allowance);
    return most;
  }

  /** One complete line: the ready line once, else exactly one reply to a request that waits for it. */
  private take(one: string): void {
    const wrong = this.deliver(one);
    if (wrong) this.tampered(wrong);
  }

  /** Hands the line's reply to its request; what is wrong with it otherwise (it was not the agent's). */
  private deliver(one: string): string | null {
    if (one.length > this.longestAllowed()) return `a line of ${one.length} characters`;
    let reply: unknown;
    try {
      reply = JSON.parse(one);
    } catch {
      return `a line that is not JSON: ${JSON.stringify(one.slice(0, 80))}`;
    }
    const id = (reply as { id?: unknown } | null)?.id;
    if (typeof reply !== "object" || reply === null || Array.isArray(reply) || typeof id !== "number" || !Number.isInteger(id))
      return `a line that is not a reply: ${JSON.stringify(one.slice(0, 80))}`;
    const r = reply as AgentReply;
    if (id === 0) {
      if (this.sawReady || !r.ready) return "a second ready line";
      this.sawReady = true;
      this.agentPid = typeof r.pid === "number" ? r.pid : null;
      this.readyWaiter?.resolve();
      return null;
    }
    const p = this.pending.get(id);
    if (!p) return id > 0 && id < this.nextId ? `a second reply to request ${id}` : `a reply to request ${id}, never asked`;
    if (one.length > p.allowance) return `a reply of ${one.length} characters to request ${id}`;
    this.pending.delete(id);
    p.resolve(r);
    return null;
  }

  private tampered(what: string): void {
    this.fail(new ChannelTampered(what));
  }

  /** What a transport saw that no agent writes (a docker frame larger than any reply): the channel is tampered with. */
  tamperedWith(what: string): void {
    this.tampered(what);
  }

  /** Why the channel cannot be trusted, when something inside the sandbox wrote into it; null otherwise. */
  get tamper(): ChannelTampered | null {
    return this.closedWith instanceof ChannelTampered ? this.closedWith : null;
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

  /**
   * Sends one request; resolves with its reply. Returns the id through `onId` (for kill).
   * `replyBytes`: the most payload bytes its reply may carry (an exec's kept output, a read's
   * files), which sets how long its reply line may be (see replyAllowance).
   */
  request(msg: Record<string, unknown>, onId?: (id: number) => void, replyBytes = 0): Promise<AgentReply> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    onId?.(id);
    return new Promise<AgentReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, allowance: replyAllowance(replyBytes) });
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
    if (client.broken) return;
    frames = frames.length ? Buffer.concat([frames, chunk]) : chunk;
    while (frames.length >= 8) {
      const size = frames.readUInt32BE(4);
      // A frame larger than any reply: the same flood as a line with no end (see AgentClient.stdout).
      if (size > client.longestAllowed() + 8) {
        frames = Buffer.alloc(0);
        client.tamperedWith(`a frame of ${size} bytes`);
        return;
      }
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
