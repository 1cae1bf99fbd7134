import { toBuffer } from "../diff";
import { resolveSandboxPath } from "../paths";
import { withDeadline } from "../../util/deadline";
import type { AgentClient, AgentReply } from "./agent-client";

/**
 * What both backends' sandboxes ask of their agent besides commands (see agent-exec.ts): a
 * liveness probe, and the reset or wipe that makes a sandbox clean for its next use. Each
 * backend adds only what it alone knows (a container's state, a process tree's folders).
 */

/** Folders a reset empties besides the workdir, as the sandbox sees them: the writable places a rollout could leave something in (the agent skips those it lacks). */
export const WIPED = ["/tmp", "/dev/shm", "/dev/mqueue"];

/** Seeds up to this size go with the reset request; larger ones are written after it, by the backend's own way in. */
export const INLINE_SEED_BYTES = 4 * 1024 * 1024;

/** What a request resolves to when it had no answer within its time (see answerWithin). */
export const SILENT = Symbol("silent");

/** The request's answer, or SILENT when none came within `ms` (it rejects as the request does). */
export async function answerWithin<T>(request: Promise<T>, ms: number): Promise<T | typeof SILENT> {
  const r = await withDeadline(request, ms);
  return r.ok ? r.value : SILENT;
}

/**
 * A liveness probe: a request that starts no process (reading no files). Null when the agent
 * answered within timeoutMs, else its silence as an Error; rejects as the request does (the
 * agent's connection broke).
 */
export async function pingAgent(agent: AgentClient, timeoutMs: number): Promise<Error | null> {
  const r = await answerWithin(agent.request({ op: "read", paths: [] }), timeoutMs);
  return r === SILENT ? new Error(`the sandbox agent did not answer a liveness probe within ${timeoutMs / 1000} s`) : null;
}

/**
 * The agent's reset request: a pristine sandbox only gets the seed written; any other is wiped
 * first (every process killed, the workdir and WIPED emptied), in the same round trip. `inline`
 * says whether the seed went with it (else the caller writes it once the reset answered).
 */
export function resetRequest(
  workdir: string,
  seed: Record<string, string | Buffer>,
  pristine: boolean,
): { request: Record<string, unknown>; inline: boolean } {
  const entries = Object.entries(seed);
  const inline = entries.reduce((n, [, c]) => n + c.length, 0) <= INLINE_SEED_BYTES;
  const files = inline ? Object.fromEntries(entries.map(([p, c]) => [resolveSandboxPath(workdir, p), toBuffer(c).toString("base64")])) : {};
  return { request: pristine ? { op: "write", files, mode: null } : { op: "wipe", paths: [workdir, ...WIPED], files }, inline };
}

/** What a reset's or wipe's reply says went wrong: null when the sandbox is provably clean. */
export function resetFailure(r: AgentReply): string | null {
  return (
    r.error ??
    (r.left && r.left.length > 0
      ? `could not remove ${r.left.slice(0, 5).join(", ")}${r.left.length > 5 ? ` and ${r.left.length - 5} more` : ""}`
      : null)
  );
}
