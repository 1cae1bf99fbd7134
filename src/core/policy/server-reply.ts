import { parseCompletionBody } from "../tokens/parse-completion";
import { type BackoffOptions, backoffDelay } from "../util/backoff";

/**
 * A 2xx reply the policy server sent that is not a completion: empty, cut short, an HTML page from a
 * proxy in front of it. The server's fault, not the model's: retried like a 5xx, then an
 * infrastructure error (a score of 0 for it would be kept in the run's mean).
 */
export class UnreadableReplyError extends Error {
  override name = "UnreadableReplyError";
}

/** The first characters of a body, on one line, for an error message. */
function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "an empty body";
  return flat.length > 120 ? `"${flat.slice(0, 120)}…"` : `"${flat}"`;
}

/**
 * A chat or text completion read from its body: JSON with a `choices` array (vLLM's logprob entries
 * slimmed as parseCompletionBody does), or an UnreadableReplyError naming the server, the status,
 * the content type and the body's start.
 */
export function readCompletionBody(text: string, where: { server: string; status: number; contentType: string | null }): unknown {
  let body: unknown;
  try {
    body = parseCompletionBody(text);
  } catch (e) {
    throw new UnreadableReplyError(
      `policy server at ${where.server} answered HTTP ${where.status} (${where.contentType ?? "no content type"}) with a body that is not JSON (${(e as Error).message}): ${preview(text)}`,
    );
  }
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (typeof body !== "object" || body === null || !Array.isArray(choices))
    throw new UnreadableReplyError(
      `policy server at ${where.server} answered HTTP ${where.status} with JSON that is not a completion (no choices array): ${preview(text)}`,
    );
  return body;
}

/** The longest wait a server's Retry-After is honoured for: past it, our own backoff cap decides. */
export const RETRY_AFTER_MAX_MS = 60_000;

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3), at most RETRY_AFTER_MAX_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_MAX_MS);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), RETRY_AFTER_MAX_MS);
}

/** The wait before retry `attempt`: our backoff, or longer when a 429/503 said when to come back. */
export function retryDelay(
  attempt: number,
  backoff: BackoffOptions,
  status: number | undefined,
  retryAfter: string | null | undefined,
): number {
  const ours = backoffDelay(attempt, backoff);
  if (status !== 429 && status !== 503) return ours;
  return Math.max(ours, retryAfterMs(retryAfter) ?? 0);
}
