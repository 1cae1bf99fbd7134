import type { ToolSpec } from "../../policy/types";
import type { ServeContext } from "../serve-context";
import { ServeError, type SessionHandle } from "../session-types";
import { parseAction, parseReset } from "./actions";
import { asServeError, invalid } from "./errors";
import { listToolsPayload, resetPayload, stepPayload } from "./observation";
import type { StepPayload } from "./wire";

/**
 * What every OpenEnv transport (WS /ws, HTTP, MCP) does to one session, so the three agree:
 * reset a task, play an action, read the state, fork. `prefix` names where the payload sat in
 * the client's message, so a VALIDATION_ERROR points at the exact field.
 */

export const PROTOCOL = "openenv";

/** Counts an error for /metrics by kind; the registry counts its own capacity refusals. */
export function countError(ctx: ServeContext, error: unknown): void {
  const kind = asServeError(error).kind;
  if (kind !== "capacity") ctx.metrics.error(PROTOCOL, kind);
}

/** The tools of the session's environment, or of the one `environment` names (tools/list needs no reset). */
export function toolsOf(ctx: ServeContext, session: SessionHandle | undefined, environment?: string): readonly ToolSpec[] {
  const named = environment ?? session?.state().environment ?? undefined;
  return ctx.environments.get(named).tools;
}

export async function resetSession(ctx: ServeContext, session: SessionHandle, data: unknown, prefix: string): Promise<StepPayload> {
  const req = parseReset(data, prefix);
  // A wrong environment or task id is refused before the open episode is dropped: the session stays as it was.
  const served = ctx.environments.get(req.environment);
  if (req.task_id !== undefined) ctx.environments.pickTask(served, req.task_id);
  const obs = await session.reset(req);
  ctx.sessions.touch(session.id);
  return resetPayload(obs, session.id);
}

export async function stepSession(ctx: ServeContext, session: SessionHandle, action: unknown, prefix: string): Promise<StepPayload> {
  const parsed = parseAction(action, prefix);
  ctx.sessions.touch(session.id);
  if (parsed.kind === "list_tools") return listToolsPayload(toolsOf(ctx, session));
  const started = performance.now();
  const obs = parsed.kind === "call" ? await session.step(parsed.calls, parsed.content) : await session.finish(parsed.content);
  ctx.metrics.step(PROTOCOL, performance.now() - started);
  ctx.sessions.touch(session.id);
  return stepPayload(obs, session.id);
}

/** OpenEnv's State (episode_id, step_count) plus rlenv's facts; extra keys are allowed there (extra="allow"). */
export function sessionState(session: SessionHandle): Record<string, unknown> {
  return { ...session.state(), session_id: session.id };
}

/** The most sessions one fork may make: a fork is a sandbox each, and capacity bounds them anyway. */
const MAX_FORK = 64;

export function parseForkCount(data: unknown, prefix: string): number {
  const n = typeof data === "object" && data !== null ? (data as Record<string, unknown>).n : undefined;
  if (n === undefined) return 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_FORK) {
    throw invalid(`${prefix}.n`, `must be an integer from 1 to ${MAX_FORK}`);
  }
  return n;
}

/** rlenv's fork: N sessions continuing from this one's exact state, each reachable by its id (see docs/serve/openenv.md). */
export async function forkSession(ctx: ServeContext, session: SessionHandle, n: number): Promise<Record<string, unknown>> {
  ctx.sessions.touch(session.id);
  const forks = await session.fork(n);
  // Each fork's conversation so far and its tools, as a reset observation: what its new owner continues from.
  const sessions = await Promise.all(
    forks.map(async (f) => ({ session_id: f.id, state: f.state(), ...resetPayload(await f.forkObservation(), f.id) })),
  );
  return { session_id: session.id, session_ids: forks.map((f) => f.id), sessions };
}

/** A session for one stateless HTTP/MCP call, as OpenEnv makes a fresh environment per request; always closed after. */
export async function withTemporarySession<T>(ctx: ServeContext, work: (s: SessionHandle) => Promise<T>): Promise<T> {
  const session = ctx.sessions.open({ protocol: PROTOCOL });
  try {
    return await work(session);
  } finally {
    await ctx.sessions.close(session.id);
  }
}

/** A session by id, or a SESSION_ERROR naming the field. */
export function sessionById(ctx: ServeContext, id: unknown, field: string): SessionHandle {
  if (typeof id !== "string" || id === "") throw invalid(field, "must be a non-empty string (a session id)");
  const session = ctx.sessions.get(id);
  if (!session) throw new ServeError("not_found", `Unknown session_id: ${id}`, field);
  return session;
}
