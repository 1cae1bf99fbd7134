/**
 * Unit-test doubles for the serve contracts (the conformance suite uses the real server):
 * a SessionHandle that plays a scripted episode (tool `submit` ends it with reward 1, `crash`
 * fails the machinery, `echo` answers its text), a registry with a capacity, and a tiny
 * node:http + ws server that routes to a ProtocolMount as the foundation's server does.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import type { LoadedTask } from "../../../../src/core/model/environment";
import type { ToolSpec } from "../../../../src/core/policy/types";
import type { ProtocolMount, ServeContext, ServedEnvironment, SessionRegistry } from "../../../../src/core/serve/serve-context";
import {
  type ResetRequest,
  ServeError,
  type ServedObservation,
  type ServedState,
  type ServedToolCall,
  type SessionHandle,
} from "../../../../src/core/serve/session-types";

export const TOOLS: ToolSpec[] = [
  { name: "echo", description: "Says it back", parameters: { type: "object", properties: { text: { type: "string" } } } },
  { name: "submit", description: "Submit", parameters: { type: "object", properties: { answer: { type: "string" } } } },
];

let nextId = 0;

export class FakeSession implements SessionHandle {
  readonly id = `s${++nextId}`;
  calls: ServedToolCall[][] = [];
  closed = false;
  private episode: { id: string; task: string; turn: number; done: boolean } | null = null;
  forkedFrom?: { episode_id: string; turn: number };

  constructor(private readonly registry: FakeRegistry) {}

  private obs(extra: Partial<ServedObservation>): ServedObservation {
    const e = this.episode;
    if (!e) throw new Error("no episode");
    return {
      episode_id: e.id,
      environment: "fake",
      task_id: e.task,
      messages: [],
      tools: TOOLS,
      tool_results: [],
      turn: e.turn,
      max_turns: 3,
      done: e.done,
      trajectory: `/runs/${e.id}.jsonl`,
      ...extra,
    };
  }

  async reset(req: ResetRequest): Promise<ServedObservation> {
    if (req.task_id === "missing") throw new ServeError("not_found", "no task missing", "task_id");
    this.episode = { id: req.episode_id ?? `ep-${this.id}`, task: req.task_id ?? `t${req.seed ?? 0}`, turn: 0, done: false };
    return this.obs({
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: `Solve ${this.episode.task}` },
      ],
    });
  }

  async step(calls: ServedToolCall[]): Promise<ServedObservation> {
    const e = this.episode;
    if (!e || e.done) throw new ServeError("no_episode", "step before reset");
    this.calls.push(calls);
    e.turn++;
    const results = calls.map((c, i) => {
      if (c.name === "crash") throw new ServeError("infra", "sandbox lost");
      const args = typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments;
      return { tool_call_id: c.id ?? `call-${i}`, name: c.name, content: String(args.text ?? args.answer ?? ""), is_error: false };
    });
    const submitted = calls.some((c) => c.name === "submit");
    if (submitted || e.turn >= 3) {
      e.done = true;
      const reward = submitted ? 1 : 0;
      return this.obs({
        tool_results: results,
        score: {
          status: submitted ? "completed" : "truncated",
          reward,
          components: [{ name: "exact", type: "exact", weight: 1, score: reward }],
          infra: false,
        },
      });
    }
    return this.obs({ tool_results: results });
  }

  async finish(): Promise<ServedObservation> {
    const e = this.episode;
    if (!e) throw new ServeError("no_episode", "finish before reset");
    e.done = true;
    return this.obs({ score: { status: "completed", reward: 0, components: [], infra: false } });
  }

  state(): ServedState {
    const e = this.episode;
    return {
      episode_id: e?.id ?? null,
      step_count: e?.turn ?? 0,
      environment: e ? "fake" : null,
      task_id: e?.task ?? null,
      done: e?.done ?? false,
      ...(this.forkedFrom ? { forked_from: this.forkedFrom } : {}),
    };
  }

  async fork(n: number): Promise<SessionHandle[]> {
    const e = this.episode;
    if (!e) throw new ServeError("no_episode", "fork before reset");
    return Array.from({ length: n }, () => {
      const s = this.registry.open({ protocol: "openenv" });
      s.episode = { ...e, id: `${e.id}-fork` };
      s.forkedFrom = { episode_id: e.id, turn: e.turn };
      return s;
    });
  }

  async forkObservation(): Promise<ServedObservation> {
    return this.obs({ messages: [{ role: "user", content: "so far" }] });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export class FakeRegistry implements SessionRegistry {
  readonly sessions = new Map<string, FakeSession>();
  readonly closedIds: string[] = [];
  constructor(readonly max: number) {}
  get active(): number {
    return this.sessions.size;
  }
  open(_origin?: { protocol: string }): FakeSession {
    if (this.sessions.size >= this.max) {
      throw new ServeError("capacity", `Server at capacity (${this.sessions.size}/${this.max})`, undefined, {
        active: this.sessions.size,
        max: this.max,
      });
    }
    const s = new FakeSession(this);
    this.sessions.set(s.id, s);
    return s;
  }
  get(id: string): FakeSession | undefined {
    return this.sessions.get(id);
  }
  touch(): void {}
  async close(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.closedIds.push(id);
    await s.close();
  }
}

export function fakeContext(max = 4): { ctx: ServeContext; registry: FakeRegistry; errors: string[] } {
  const registry = new FakeRegistry(max);
  const errors: string[] = [];
  const served = { name: "fake", tools: TOOLS, tasks: [], env: { manifest: { name: "fake", description: "A fake" } }, dir: "/nonexistent" };
  const ctx: ServeContext = {
    environments: {
      list: [served as unknown as ServedEnvironment],
      get: (name?: string) => {
        if (name !== undefined && name !== "fake") throw new ServeError("not_found", `no environment ${name}`, "environment");
        return served as unknown as ServedEnvironment;
      },
      pickTask: (_served: ServedEnvironment, taskId?: string) => {
        if (taskId === "missing") throw new ServeError("not_found", "no task missing", "task_id");
        return {} as LoadedTask;
      },
    },
    sessions: registry,
    metrics: {
      sessionOpened() {},
      sessionClosed() {},
      step() {},
      error: (_p, kind) => {
        errors.push(kind);
      },
      text: async () => "",
    },
    runsDir: "/tmp",
    signal: new AbortController().signal,
  };
  return { ctx, registry, errors };
}

/** A loopback server for one mount: HTTP routes by exact path, WS upgrades by path. */
export async function serveMount(mount: ProtocolMount): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = mount.http.find((r) => r.method === req.method && r.path === url.pathname);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    void route.handle(req, res, url);
  });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = mount.ws.find((r) => r.path === url.pathname);
    if (!route) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => route.accept(ws, req));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
