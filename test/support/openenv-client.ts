/**
 * A test client of OpenEnv's wire protocol, written from meta-pytorch/OpenEnv's
 * core/env_client.py (EnvClient: `{type, data}` messages over `<base>/ws`, one reply per
 * message, an `error` reply raised with its code), generic_client.py (GenericEnvClient:
 * actions as plain dicts, `{observation, reward, done}` results) and mcp_client.py
 * (MCPToolClient: `call_tool` / `list_tools` actions; production mode's JSON-RPC to `/mcp`
 * with `openenv/session/create|close`). It speaks only the wire: nothing of rlenv's code.
 */
import WebSocket from "ws";

export interface StepResult {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

export class OpenEnvServerError extends Error {
  constructor(readonly data: Record<string, unknown>) {
    super(`Server error: ${String(data.message ?? "Unknown error")} (code: ${String(data.code ?? "UNKNOWN")})`);
  }
}

/** GenericEnvClient over WS /ws. */
export class OpenEnvWsClient {
  private ws: WebSocket | null = null;
  private readonly inbox: string[] = [];
  private readonly waiters: Array<(text: string) => void> = [];
  private closedWith: Error | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
    private readonly query = "",
    /** OpenEnv's message_timeout_s (60 s there too): how long a reply may take. */
    private readonly messageTimeoutMs = 60_000,
  ) {}

  get url(): string {
    return `${this.baseUrl.replace(/^http/, "ws").replace(/\/$/, "")}/ws${this.query}`;
  }

  async connect(): Promise<this> {
    const ws = new WebSocket(this.url, { headers: this.headers });
    ws.on("message", (raw) => {
      const text = raw.toString();
      const w = this.waiters.shift();
      if (w) w(text);
      else this.inbox.push(text);
    });
    ws.on("close", () => {
      this.closedWith = new Error("connection closed");
      for (const w of this.waiters.splice(0)) w("");
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    this.ws = ws;
    return this;
  }

  /** The next message from the server, parsed (throws once the socket closed with nothing queued). */
  async receive(timeoutMs = this.messageTimeoutMs): Promise<Record<string, unknown>> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return JSON.parse(queued);
    if (this.closedWith) throw this.closedWith;
    const text = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((t) => {
        clearTimeout(timer);
        resolve(t);
      });
    });
    if (text === "") throw this.closedWith ?? new Error("connection closed");
    return JSON.parse(text);
  }

  sendRaw(text: string): void {
    if (!this.ws) throw new Error("not connected");
    this.ws.send(text);
  }

  /** `_send_and_receive`: the raw reply envelope. */
  async request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.sendRaw(JSON.stringify(message));
    return this.receive();
  }

  private async expect(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reply = await this.request(message);
    if (reply.type === "error") throw new OpenEnvServerError(reply.data as Record<string, unknown>);
    return (reply.data ?? {}) as Record<string, unknown>;
  }

  private static result(data: Record<string, unknown>): StepResult {
    return {
      observation: (data.observation ?? {}) as Record<string, unknown>,
      reward: (data.reward ?? null) as number | null,
      done: Boolean(data.done ?? false),
    };
  }

  async reset(kwargs: Record<string, unknown> = {}): Promise<StepResult> {
    return OpenEnvWsClient.result(await this.expect({ type: "reset", data: kwargs }));
  }

  async step(action: Record<string, unknown>): Promise<StepResult> {
    return OpenEnvWsClient.result(await this.expect({ type: "step", data: action }));
  }

  /** MCPToolClient.call_tool's action. */
  async callTool(name: string, args: Record<string, unknown>): Promise<StepResult> {
    return this.step({ type: "call_tool", tool_name: name, arguments: args });
  }

  async state(): Promise<Record<string, unknown>> {
    return this.expect({ type: "state" });
  }

  async mcp(method: string, params: Record<string, unknown> = {}, id: number | string = 1): Promise<Record<string, unknown>> {
    const reply = await this.request({ type: "mcp", data: { jsonrpc: "2.0", method, params, id } });
    return (reply.data ?? {}) as Record<string, unknown>;
  }

  async fork(n: number): Promise<string[]> {
    const data = await this.expect({ type: "fork", data: { n } });
    return data.session_ids as string[];
  }

  /** `disconnect`: a best-effort close message, then the socket closes. */
  async close(): Promise<void> {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    try {
      ws.send(JSON.stringify({ type: "close" }));
    } catch {}
    await new Promise<void>((resolve) => {
      if (ws.readyState === ws.CLOSED) return resolve();
      ws.once("close", () => resolve());
      ws.close();
    });
  }

  /** Drops the TCP connection without a close message: a client that vanished. */
  terminate(): void {
    this.ws?.terminate();
    this.ws = null;
  }
}

/** MCPToolClient's production mode: JSON-RPC 2.0 over HTTP POST /mcp. */
export async function mcpPost(
  baseUrl: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  id: number | string = 1,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl.replace(/\/$/, "")}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", method, params, id }),
  });
  return (await res.json()) as Record<string, unknown>;
}
