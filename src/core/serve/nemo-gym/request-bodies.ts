import { invalidBody, isObject, requireObjectBody, type ValidationIssue } from "./http-errors";

/**
 * The request bodies of NeMo Gym's endpoints, checked as its pydantic models check them, so a
 * malformed body is the same 422 naming the same field: BaseRunRequest (`responses_create_params`,
 * a NeMoGymResponseCreateParamsNonStreaming with extra="forbid" and `input` required),
 * BaseVerifyRequest (plus `response`, an OpenAI Response), AggregateMetricsRequest.
 * Rows keep their other fields (SimpleAgentRunRequest has extra="allow").
 */

type Issue = Omit<ValidationIssue, "loc"> & { path: Array<string | number> };

/** The fields of NeMoGymResponseCreateParamsNonStreaming (nemo_gym/openai_utils.py): any other is extra_forbidden. */
const CREATE_PARAMS_FIELDS = new Set([
  "background",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "reasoning",
  "service_tier",
  "store",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
  "stream",
]);

type Kind = "string" | "number" | "int" | "bool" | "list" | "dict";
const MESSAGES: Record<Kind, [string, string]> = {
  string: ["string_type", "Input should be a valid string"],
  number: ["float_type", "Input should be a valid number"],
  int: ["int_type", "Input should be a valid integer"],
  bool: ["bool_type", "Input should be a valid boolean"],
  list: ["list_type", "Input should be a valid list"],
  dict: ["dict_type", "Input should be a valid dictionary"],
};

function isKind(v: unknown, k: Kind): boolean {
  switch (k) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "int":
      return typeof v === "number" && Number.isInteger(v);
    case "bool":
      return typeof v === "boolean";
    case "list":
      return Array.isArray(v);
    case "dict":
      return isObject(v);
  }
}

/** A field of `obj`: required ones missing, and any of the wrong type (null allowed where optional), are issues. */
function field(obj: Record<string, unknown>, path: Array<string | number>, name: string, kind: Kind, required: boolean, issues: Issue[]) {
  const v = obj[name];
  if (v === undefined) {
    if (required) issues.push({ type: "missing", path: [...path, name], msg: "Field required", input: obj });
    return;
  }
  if (v === null && !required) return;
  if (!isKind(v, kind)) {
    const [type, msg] = MESSAGES[kind];
    issues.push({ type, path: [...path, name], msg, input: v });
  }
}

/** What a row or a verify request says to the model: the checked create params. */
export type CreateParams = Record<string, unknown> & { input: string | unknown[] };

function checkCreateParams(v: unknown, path: Array<string | number>, issues: Issue[]): void {
  if (!isObject(v)) {
    issues.push({
      type: "model_type",
      path,
      msg: "Input should be a valid dictionary or instance of NeMoGymResponseCreateParamsNonStreaming",
      input: v,
    });
    return;
  }
  if (v.input === undefined) issues.push({ type: "missing", path: [...path, "input"], msg: "Field required", input: v });
  else if (typeof v.input !== "string" && !Array.isArray(v.input))
    issues.push({ type: "list_type", path: [...path, "input"], msg: "Input should be a valid string or list", input: v.input });
  for (const k of Object.keys(v))
    if (!CREATE_PARAMS_FIELDS.has(k))
      issues.push({ type: "extra_forbidden", path: [...path, k], msg: "Extra inputs are not permitted", input: v[k] });
  field(v, path, "model", "string", false, issues);
  field(v, path, "tools", "list", false, issues);
  field(v, path, "temperature", "number", false, issues);
  field(v, path, "top_p", "number", false, issues);
  field(v, path, "max_output_tokens", "int", false, issues);
  field(v, path, "metadata", "dict", false, issues);
  field(v, path, "instructions", "string", false, issues);
  field(v, path, "parallel_tool_calls", "bool", false, issues);
  if (v.stream !== undefined && v.stream !== null && v.stream !== false)
    issues.push({ type: "literal_error", path: [...path, "stream"], msg: "Input should be False", input: v.stream });
}

/** A row for /run (or a seed_session body): `responses_create_params` and the row's own fields. */
export interface RunRequest {
  responses_create_params: CreateParams;
  [k: string]: unknown;
}

export function parseRunRequest(input: unknown): RunRequest {
  const body = requireObjectBody(input);
  const issues = rowIssues(body);
  if (issues.length > 0) throw invalidBody(issues);
  return body as RunRequest;
}

/** What is wrong with a row's own part: its create params and the fields rlenv reads. */
function rowIssues(body: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  if (body.responses_create_params === undefined)
    issues.push({ type: "missing", path: ["responses_create_params"], msg: "Field required", input: body });
  else checkCreateParams(body.responses_create_params, ["responses_create_params"], issues);
  rowFields(body, issues);
  return issues;
}

/** The fields rlenv reads from a row (see taskOfRow): wrong types are 422s, not a silent default. */
function rowFields(body: Record<string, unknown>, issues: Issue[]): void {
  field(body, [], "environment", "string", false, issues);
  field(body, [], "task_id", "string", false, issues);
  field(body, [], "seed", "int", false, issues);
  field(body, [], "model_server", "dict", false, issues);
  if (isObject(body.model_server)) {
    field(body.model_server, ["model_server"], "base_url", "string", true, issues);
    const api = body.model_server.api;
    if (api !== undefined && api !== "responses" && api !== "chat_completions")
      issues.push({
        type: "literal_error",
        path: ["model_server", "api"],
        msg: "Input should be 'responses' or 'chat_completions'",
        input: api,
      });
  }
}

/** BaseVerifyRequest: the row plus the agent's `response`. */
export interface VerifyRequest extends RunRequest {
  response: Record<string, unknown> & { output: Array<Record<string, unknown>> };
}

/** The required fields of OpenAI's Response (NeMoGymResponse subclasses it). */
const RESPONSE_REQUIRED: Array<[string, Kind]> = [
  ["id", "string"],
  ["created_at", "number"],
  ["model", "string"],
  ["object", "string"],
  ["output", "list"],
  ["parallel_tool_calls", "bool"],
  ["tools", "list"],
];

export function parseVerifyRequest(input: unknown): VerifyRequest {
  const body = requireObjectBody(input);
  const issues = rowIssues(body);
  const r = body.response;
  if (r === undefined) issues.push({ type: "missing", path: ["response"], msg: "Field required", input: body });
  else if (!isObject(r))
    issues.push({
      type: "model_type",
      path: ["response"],
      msg: "Input should be a valid dictionary or instance of NeMoGymResponse",
      input: r,
    });
  else {
    for (const [name, kind] of RESPONSE_REQUIRED) field(r, ["response"], name, kind, true, issues);
    if (r.tool_choice === undefined) issues.push({ type: "missing", path: ["response", "tool_choice"], msg: "Field required", input: r });
    if (Array.isArray(r.output))
      r.output.forEach((item, i) => {
        if (!isObject(item) || typeof item.type !== "string")
          issues.push({
            type: "value_error",
            path: ["response", "output", i],
            msg: "Value error, Responses API output items must include a type discriminator",
            input: item,
          });
      });
  }
  if (issues.length > 0) throw invalidBody(issues);
  return body as VerifyRequest;
}

/** AggregateMetricsRequest: `verify_responses`, a list of dicts. */
export function parseAggregateRequest(input: unknown): Array<Record<string, unknown>> {
  const body = requireObjectBody(input);
  const list = body.verify_responses;
  if (list === undefined) throw invalidBody([{ type: "missing", path: ["verify_responses"], msg: "Field required", input: body }]);
  if (!Array.isArray(list))
    throw invalidBody([{ type: "list_type", path: ["verify_responses"], msg: "Input should be a valid list", input: list }]);
  const issues: Issue[] = [];
  list.forEach((v, i) => {
    if (!isObject(v))
      issues.push({ type: "dict_type", path: ["verify_responses", i], msg: "Input should be a valid dictionary", input: v });
  });
  if (issues.length > 0) throw invalidBody(issues);
  return list as Array<Record<string, unknown>>;
}
