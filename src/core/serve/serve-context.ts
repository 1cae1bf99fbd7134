import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebSocket } from "ws";
import type { DomainPlugin } from "../model/domain";
import type { Environment, LoadedTask } from "../model/environment";
import type { SandboxProvider } from "../model/sandbox";
import type { ToolSpec } from "../policy/types";
import type { Toolset } from "../rollout/toolset";
import type { ServeErrorKind, SessionHandle } from "./session-types";

/** One environment a server serves: loaded once, its sandbox provider (warm pool) shared by its sessions. */
export interface ServedEnvironment {
  /** The manifest's name: what a reset's `environment` names. */
  readonly name: string;
  readonly dir: string;
  readonly env: Environment;
  readonly tasks: readonly LoadedTask[];
  readonly provider: SandboxProvider;
  /** The domain plugin and the tool set every episode of this environment shares (as a run's scheduler shares them). */
  readonly domain: DomainPlugin | null;
  readonly toolset: Toolset;
  /** The tools an agent of this environment may call (the same for every task). */
  readonly tools: readonly ToolSpec[];
  /** The hash of the reward definition (verifiers, their files, judge prompts): see provenance. */
  readonly rewardHash: string;
  /** This environment's run folder (run.json, rollouts/): served trajectories are a run `rlenv view` reads. */
  readonly runDir: string;
  readonly runId: string;
  /** A new rollout id and its trajectory file in runDir, for an episode of `task` (ids never repeat within a server). */
  nextRollout(task: LoadedTask): { rolloutId: string; sample: number; file: string };
}

/** The environments of one server, and how a reset picks a task. */
export interface ServedEnvironments {
  readonly list: readonly ServedEnvironment[];
  /** By name; the only one when the server serves one and no name is given. Throws ServeError not_found/invalid. */
  get(name?: string): ServedEnvironment;
  /** By id, else by seed (seed mod task count, so a seed always picks the same task), else round robin. */
  pickTask(served: ServedEnvironment, taskId?: string, seed?: number): LoadedTask;
}

/** The sessions of one server: capacity, idle reaping and shutdown live here. */
export interface SessionRegistry {
  /** A new session; throws ServeError("capacity") at --max-sessions, never waits. */
  open(origin: { protocol: string }): SessionHandle;
  get(id: string): SessionHandle | undefined;
  /** Marks a session used now (the idle reaper counts from the last use). */
  touch(id: string): void;
  close(id: string): Promise<void>;
  readonly active: number;
  readonly max: number;
}

/** What /metrics counts. */
export interface ServeMetrics {
  sessionOpened(protocol: string): void;
  sessionClosed(protocol: string, why: "client" | "idle" | "shutdown" | "error"): void;
  step(protocol: string, ms: number): void;
  error(protocol: string, kind: ServeErrorKind | "internal"): void;
  /** The Prometheus text. */
  text(): Promise<string>;
}

/** Everything a protocol's handlers need. */
export interface ServeContext {
  readonly environments: ServedEnvironments;
  readonly sessions: SessionRegistry;
  readonly metrics: ServeMetrics;
  /** The runs folder: each served environment's run folder is in it. */
  readonly runsDir: string;
  /** Aborted when the server shuts down (SIGTERM): long requests (rollouts, /run) stop with it. */
  readonly signal: AbortSignal;
}

/** One HTTP route of a protocol. `path` is exact, or ends with `/*` to match a prefix. */
export interface HttpRoute {
  method: "GET" | "POST" | "DELETE";
  path: string;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

/** One WebSocket endpoint of a protocol (the server authenticates before it hands the socket over). */
export interface WsRoute {
  path: string;
  accept(ws: WebSocket, req: IncomingMessage): void;
}

/** What a protocol module adds to the server. */
export interface ProtocolMount {
  name: string;
  http: HttpRoute[];
  ws: WsRoute[];
}
