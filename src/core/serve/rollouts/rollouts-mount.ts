import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ProtocolMount, ServeContext } from "../serve-context";
import { ServeError } from "../session-types";
import { readJsonBody } from "../http-io";
import { parseRolloutsRequest } from "./request";
import { planGroups, runBatch } from "./rollout-batch";

/** The HTTP status of a ServeError before the stream starts. */
const STATUS: Record<ServeError["kind"], number> = {
  invalid: 400,
  not_found: 404,
  capacity: 429,
  no_episode: 409,
  infra: 502,
  unauthorized: 401,
  closed: 503,
};

/**
 * `POST /v1/rollouts`: a batch of rollouts for an orchestrator (prime-rl-style), streamed as
 * NDJSON, one line per finished rollout (token ids, loss mask, logprobs, reward, group-normalised
 * advantage, status, policy version, what it spent, the reward hash), then one summary line. A
 * client that disconnects cancels the batch: running rollouts end cancelled and their sandboxes
 * go back. See docs/serve/rollouts.md.
 */
export function rolloutsMount(ctx: ServeContext): ProtocolMount {
  return {
    name: "rollouts",
    http: [{ method: "POST", path: "/v1/rollouts", handle: (req, res) => handleRollouts(ctx, req, res) }],
    ws: [],
  };
}

async function handleRollouts(ctx: ServeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare(ctx, parseRolloutsRequest(await readJsonBody(req)));
  } catch (e) {
    refuse(ctx, res, e);
    return;
  }
  const { served, request, groups, batchId } = prepared;
  // The client going away (its socket closed before the last line) or the server shutting down cancels the batch.
  const cancel = new AbortController();
  // Every running rollout of the batch listens on it: up to `concurrency` listeners are expected, not a leak.
  setMaxListeners(Math.max(100, 4 * (request.concurrency + 8)), cancel.signal);
  const onClose = () => {
    if (!res.writableFinished) cancel.abort(new Error("the client closed the connection"));
  };
  const onShutdown = () => cancel.abort(new Error("the server is shutting down"));
  res.on("close", onClose);
  if (ctx.signal.aborted) onShutdown();
  ctx.signal.addEventListener("abort", onShutdown, { once: true });
  res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-rlenv-batch": batchId });
  res.flushHeaders();
  const send = (line: object) => {
    if (!res.destroyed) res.write(`${JSON.stringify(line)}\n`);
  };
  try {
    const summary = await runBatch({
      served,
      req: request,
      groups,
      batchId,
      signal: cancel.signal,
      emit: (line) => {
        if (line.status === "infra_error") ctx.metrics.error("rollouts", "infra");
        send(line);
      },
    });
    send(summary);
  } catch (e) {
    // The engine itself failed (the runs disk): the stream ends with an error line, never a made-up rollout.
    ctx.metrics.error("rollouts", "internal");
    send({ type: "error", kind: "internal", message: (e as Error).message });
  } finally {
    ctx.signal.removeEventListener("abort", onShutdown);
    res.end();
  }
}

function prepare(ctx: ServeContext, request: ReturnType<typeof parseRolloutsRequest>) {
  if (ctx.signal.aborted) throw new ServeError("closed", "the server is shutting down");
  const served = ctx.environments.get(request.environment);
  const batchId = `b${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  return { served, request, groups: planGroups(request, served, batchId), batchId };
}

/** An error before the stream starts: a JSON body with the kind, the message and the field. */
function refuse(ctx: ServeContext, res: ServerResponse, e: unknown): void {
  if (!(e instanceof ServeError)) {
    ctx.metrics.error("rollouts", "internal");
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { kind: "internal", message: (e as Error).message } }));
    return;
  }
  ctx.metrics.error("rollouts", e.kind);
  res.writeHead(STATUS[e.kind], { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { kind: e.kind, message: e.message, ...(e.field ? { field: e.field } : {}) } }));
}
