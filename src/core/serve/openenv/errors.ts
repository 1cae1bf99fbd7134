import { ServeError } from "../session-types";
import { JsonRpcErrorCode, type JsonRpcResponse, rpcError, WSErrorCode, type WsReply } from "./wire";

/**
 * ServeError → OpenEnv's three error shapes (WS `error` reply, JSON-RPC error, HTTP status).
 * OpenEnv's server maps a pydantic ValidationError to VALIDATION_ERROR with `errors`, a full
 * house to CAPACITY_REACHED with the counts, and any exception of the environment to
 * EXECUTION_ERROR; rlenv's kinds land on the same codes, and `kind` and `field` ride along in
 * `data` (extra keys an OpenEnv client ignores) so a caller can tell an infra failure apart.
 */

/** A malformed message: names the field, the session stays usable. */
export function invalid(field: string, message: string): ServeError {
  return new ServeError("invalid", `${field}: ${message}`, field);
}

/** Anything thrown, as a ServeError (a plain Error is the machinery's: infra, never a reward). */
export function asServeError(error: unknown): ServeError {
  if (error instanceof ServeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ServeError("infra", message);
}

/** Pydantic's `errors()` list, as OpenEnv puts it in a VALIDATION_ERROR: loc is the field's path. */
function validationErrors(error: ServeError): Array<Record<string, unknown>> {
  const loc = error.field ? error.field.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [];
  return [{ type: "value_error", loc, msg: error.message }];
}

function wsCode(error: ServeError): WSErrorCode {
  switch (error.kind) {
    case "capacity":
      return WSErrorCode.CAPACITY_REACHED;
    case "invalid":
      return WSErrorCode.VALIDATION_ERROR;
    case "not_found":
      return error.field?.endsWith("session_id") ? WSErrorCode.SESSION_ERROR : WSErrorCode.VALIDATION_ERROR;
    case "unauthorized":
    case "closed":
      return WSErrorCode.SESSION_ERROR;
    default:
      return WSErrorCode.EXECUTION_ERROR; // no_episode, infra: the environment refused or failed the call
  }
}

export function wsError(error: unknown): WsReply {
  const e = asServeError(error);
  const code = wsCode(e);
  const data: Record<string, unknown> = { message: e.message, code, kind: e.kind };
  if (e.field) data.field = e.field;
  if (code === WSErrorCode.VALIDATION_ERROR) data.errors = validationErrors(e);
  if (e.capacity) {
    data.active_sessions = e.capacity.active;
    data.max_sessions = e.capacity.max;
  }
  return { type: "error", data };
}

function rpcCode(error: ServeError): JsonRpcErrorCode {
  switch (error.kind) {
    case "invalid":
    case "not_found":
      return JsonRpcErrorCode.INVALID_PARAMS;
    case "no_episode":
      return JsonRpcErrorCode.INVALID_REQUEST; // OpenEnv's code for a call the session's state refuses
    case "infra":
      return JsonRpcErrorCode.INTERNAL_ERROR;
    default:
      return JsonRpcErrorCode.SERVER_ERROR; // capacity, closed, unauthorized
  }
}

export function rpcServeError(id: string | number | null, error: unknown): JsonRpcResponse {
  const e = asServeError(error);
  const data: Record<string, unknown> = { kind: e.kind };
  if (e.field) data.field = e.field;
  if (e.capacity) {
    data.active_sessions = e.capacity.active;
    data.max_sessions = e.capacity.max;
  }
  return rpcError(id, rpcCode(e), e.message, data);
}

/** HTTP: FastAPI's 422 `{detail: [...]}` for a malformed body, 503 at capacity, 409 out of turn, 500 otherwise. */
export function httpError(error: unknown): { status: number; body: Record<string, unknown> } {
  const e = asServeError(error);
  if (e.kind === "invalid") {
    const detail = validationErrors(e).map((d) => ({ ...d, loc: ["body", ...(d.loc as unknown[])] }));
    return { status: 422, body: { detail } };
  }
  const status = { capacity: 503, not_found: 404, no_episode: 409, unauthorized: 401, closed: 503, infra: 500 }[e.kind];
  return { status, body: { detail: wsError(e).data } };
}
