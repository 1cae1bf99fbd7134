import { ZodError } from "zod";
import { RunnerClient, RunnerHttpError } from "./client";
import type { RunnerEntry } from "./client-config";

/**
 * What a runner said about a token: it took it (and is an rlenv runner of this version), it
 * refused it (HTTP 401), it could not be reached (refused, unknown host, no answer in time), its
 * certificate is not trusted, or something answered that is not an rlenv runner.
 */
export type TokenCheck =
  | { ok: true; version: string }
  | { ok: false; reason: "wrong-token" | "unreachable" | "untrusted-certificate" | "not-a-runner"; detail: string };

/** Node's codes for a connection that never reached a runner. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNRESET", "EPIPE"]);

/**
 * Asks the runner at `entry` for `GET /v1/status` with `token`: the cheapest route behind the bearer
 * check (no Docker probe; a pool's heartbeat reads it), so a 200 proves the token and a 401 refutes it.
 */
export async function checkRunnerToken(entry: RunnerEntry, token: string, timeoutMs = 10_000): Promise<TokenCheck> {
  try {
    const status = await new RunnerClient({ url: entry.url, token, ...(entry.ca ? { ca: entry.ca } : {}) }).status(timeoutMs);
    return { ok: true, version: status.version };
  } catch (e) {
    return classify(e, timeoutMs);
  }
}

function classify(e: unknown, timeoutMs: number): Extract<TokenCheck, { ok: false }> {
  if (e instanceof RunnerHttpError) {
    if (e.status === 401) return { ok: false, reason: "wrong-token", detail: serverSays(e.message) };
    return { ok: false, reason: "not-a-runner", detail: `it answered HTTP ${e.status} to GET /v1/status` };
  }
  if (e instanceof ZodError || e instanceof SyntaxError)
    return { ok: false, reason: "not-a-runner", detail: "its answer to GET /v1/status is not a runner's status" };
  const err = e as NodeJS.ErrnoException;
  if (err.name === "AbortError" || err.name === "TimeoutError")
    return { ok: false, reason: "unreachable", detail: `no answer within ${timeoutMs / 1000} s` };
  if (err.code && UNREACHABLE.has(err.code)) return { ok: false, reason: "unreachable", detail: err.message };
  if (err.code && /CERT|SELF_SIGNED|SIGNATURE|ALTNAME/.test(err.code))
    return { ok: false, reason: "untrusted-certificate", detail: err.message };
  return { ok: false, reason: "unreachable", detail: err.message ?? String(e) };
}

/** The runner's own words in a 401 (`{"error":"wrong token"}`), else the message as it came. */
function serverSays(message: string): string {
  const m = /\{.*\}/.exec(message);
  try {
    const error = m ? (JSON.parse(m[0]) as { error?: unknown }).error : undefined;
    if (typeof error === "string") return error;
  } catch {}
  return message;
}
