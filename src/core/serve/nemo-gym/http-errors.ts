import type { IncomingMessage, ServerResponse } from "node:http";
import { ServeError, type ServeErrorKind } from "../session-types";

/**
 * Errors as NeMo Gym's FastAPI servers give them. An HTTPException is `{"detail": "<text>"}`
 * with its status; a body that fails validation is 422 with pydantic's list of errors, each
 * naming the field by its `loc` (["body", "responses_create_params", "input"]); a body that is
 * no JSON is 422 `json_invalid`. rlenv adds nothing to these shapes, so a NeMo Gym client's
 * error handling (raise_for_status, which prints the body) reads them as it reads theirs.
 */

/** One pydantic error, as FastAPI's RequestValidationError lists it. */
export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
}

/** A request NeMo Gym would refuse: its status and `detail` (a string, or the validation list). */
export class NemoHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[],
    /** What /metrics counts it as. */
    readonly kind: ServeErrorKind | "internal" = status === 422 ? "invalid" : "internal",
  ) {
    super(typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
    this.name = "NemoHttpError";
  }
}

/** A 422 for fields of the body: the path below "body", pydantic's type and message. */
export function invalidBody(issues: Array<Omit<ValidationIssue, "loc"> & { path: Array<string | number> }>): NemoHttpError {
  // pydantic's key order: type, loc, msg, input.
  return new NemoHttpError(
    422,
    issues.map(({ path, type, msg, ...rest }) => ({ type, loc: ["body", ...path], msg, ...rest })),
  );
}

/** The status each ServeError kind answers with. */
const STATUS: Record<ServeErrorKind, number> = {
  invalid: 422,
  not_found: 404,
  no_episode: 400,
  capacity: 503,
  infra: 502,
  unauthorized: 401,
  closed: 503,
};

/** Any error of a handler as NeMo Gym's reply: ServeErrors by kind, ours as they are, the rest a 500 that says what broke. */
export function toHttpError(e: unknown): NemoHttpError {
  if (e instanceof NemoHttpError) return e;
  if (e instanceof ServeError) {
    if (e.kind === "invalid" && e.field)
      return new NemoHttpError(422, [{ type: "value_error", loc: ["body", ...e.field.split(".")], msg: e.message }], "invalid");
    const capacity = e.capacity ? ` (${e.capacity.active} of ${e.capacity.max} sessions open)` : "";
    return new NemoHttpError(STATUS[e.kind], `${e.message}${capacity}`, e.kind);
  }
  return new NemoHttpError(500, e instanceof Error ? `${e.name}: ${e.message}` : String(e), "internal");
}

/** Writes a JSON reply (FastAPI's content type), with any headers (Set-Cookie) given. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, e: NemoHttpError, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, e.status, { detail: e.detail }, headers);
}

/** Bodies over this are refused (413) before they are parsed: a row with a long prompt is far below it. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The request's JSON body; an empty body is `{}` only where `emptyOk` (FastAPI's optional bodies), else 422. */
export async function readJsonBody(req: IncomingMessage, emptyOk = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new NemoHttpError(413, `request body over ${MAX_BODY_BYTES} bytes`, "invalid");
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") {
    if (emptyOk) return {};
    throw invalidBody([{ type: "missing", path: [], msg: "Field required", input: null }]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new NemoHttpError(
      422,
      [{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ...{ ctx: { error: (e as Error).message } } }],
      "invalid",
    );
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A body that must be a JSON object (a pydantic model): a 422 at the body's root otherwise, as FastAPI answers. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (isObject(body)) return body;
  throw invalidBody([
    { type: "model_attributes_type", path: [], msg: "Input should be a valid dictionary or object to extract fields from", input: body },
  ]);
}
