import type { ServePolicy } from "../serve-context";
import type { ResetRequest } from "../session-types";
import { invalidBody, isObject } from "./http-errors";
import type { CreateParams } from "./request-bodies";

/**
 * What a NeMo Gym dataset row tells rlenv, beyond `responses_create_params`. NeMo Gym rows carry
 * the task's own fields next to the create params (extra="allow"); SimpleAgent names a row's
 * task by `task_id`, `problem_id` or `instance_id`, and rollout collection stamps `_ng_task_index`
 * (the same row, the same index). rlenv reads, in order:
 *   - `environment`: which served environment (the only one when the server serves one);
 *   - `task_id` (else `instance_id`, else `problem_id`): the task, by its rlenv id;
 *   - `seed`, else `_ng_task_index`: picks the task by seed (index mod task count) when no id is given;
 *   - `model_server` (/run only): `{base_url, api?: "responses" | "chat_completions", model?}`, the
 *     policy to roll out against, else the server's configured policy.
 * The create params' `model`, `temperature`, `top_p`, `max_output_tokens` are the sampling
 * settings; `metadata.extra_body` (a JSON string, as NeMo Gym's num_repeats_add_seed writes it)
 * may carry the sampling `seed`.
 */

const TASK_ID_KEYS = ["task_id", "instance_id", "problem_id"] as const;

/** The reset a row asks for. */
export function resetOfRow(row: Record<string, unknown>): ResetRequest {
  const req: ResetRequest = {};
  if (typeof row.environment === "string") req.environment = row.environment;
  for (const k of TASK_ID_KEYS) {
    const v = row[k];
    if (typeof v === "string" && v !== "") {
      req.task_id = v;
      break;
    }
  }
  if (req.task_id === undefined) {
    const seed = typeof row.seed === "number" ? row.seed : row._ng_task_index;
    if (typeof seed === "number" && Number.isInteger(seed) && seed >= 0) req.seed = seed;
  }
  return req;
}

/** Which policy server a /run plays against, and how to talk to it (the server's --policy-url has the same shape). */
export type PolicyTarget = ServePolicy;

/** The row's `model_server`, else the server's configured one; neither is a 422 naming `model_server`. */
export function policyTargetOfRow(row: Record<string, unknown>, configured: PolicyTarget | undefined): PolicyTarget {
  const m = row.model_server;
  if (isObject(m) && typeof m.base_url === "string") {
    const api =
      m.api === "responses" ? "responses" : m.api === "chat_completions" ? "chat_completions" : (configured?.api ?? "chat_completions");
    return {
      baseURL: m.base_url,
      api,
      ...(typeof m.model === "string" ? { model: m.model } : {}),
      ...(configured?.apiKey ? { apiKey: configured.apiKey } : {}),
    };
  }
  if (configured) return configured;
  throw invalidBody([
    {
      type: "missing",
      path: ["model_server"],
      msg: "Field required: this server has no policy configured (rlenv serve --policy-url), so the row must name its model server",
      input: row,
    },
  ]);
}

/** The sampling settings of the create params (and the seed NeMo Gym's num_repeats_add_seed puts in metadata.extra_body). */
export interface Sampling {
  model: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
}

export function samplingOf(params: CreateParams, target: PolicyTarget): Sampling {
  const model = typeof params.model === "string" ? params.model : target.model;
  if (model === undefined)
    throw invalidBody([
      {
        type: "missing",
        path: ["responses_create_params", "model"],
        msg: "Field required: no model named by the row or the server",
        input: params,
      },
    ]);
  const s: Sampling = { model };
  if (typeof params.temperature === "number") s.temperature = params.temperature;
  if (typeof params.top_p === "number") s.topP = params.top_p;
  if (typeof params.max_output_tokens === "number") s.maxTokens = params.max_output_tokens;
  const extra = isObject(params.metadata) ? params.metadata.extra_body : undefined;
  if (typeof extra === "string") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(extra);
    } catch (e) {
      throw invalidBody([
        {
          type: "json_invalid",
          path: ["responses_create_params", "metadata", "extra_body"],
          msg: `Invalid JSON: ${(e as Error).message}`,
          input: extra,
        },
      ]);
    }
    if (isObject(parsed) && typeof parsed.seed === "number") s.seed = parsed.seed;
  }
  return s;
}
