import type { ServedToolCall } from "../session-types";
import { invalid } from "./errors";
import { RESERVED_TOOL_NAMES } from "./wire";

/**
 * A step's action, as OpenEnv's MCP environments take it (mcp_types.py): `call_tool`
 * (CallToolAction: tool_name, arguments) or `list_tools` (ListToolsAction). Two rlenv
 * extensions: `call_tools` plays several tool calls as one agent turn (a model that calls tools
 * in parallel takes one turn, as in `rlenv run`), and `finish` ends the episode with the
 * agent's final word (a reply without a tool call). Like OpenEnv's pydantic models, unknown
 * fields are refused (extra="forbid"), each error naming its field.
 */
export type ParsedAction =
  | { kind: "list_tools" }
  | { kind: "call"; calls: ServedToolCall[]; content: string | null }
  | { kind: "finish"; content: string | null };

const FIELDS: Record<string, readonly string[]> = {
  list_tools: ["type", "metadata"],
  call_tool: ["type", "tool_name", "arguments", "metadata"],
  call_tools: ["type", "tool_calls", "content", "metadata"],
  finish: ["type", "content", "metadata"],
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function toolName(v: unknown, field: string): string {
  if (typeof v !== "string" || v === "") throw invalid(field, "must be a non-empty string (the tool's name)");
  if (RESERVED_TOOL_NAMES.has(v)) throw invalid(field, `"${v}" is reserved: reset, step, state and close are not tools`);
  return v;
}

function toolArguments(v: unknown, field: string, rawTextAllowed: boolean): ServedToolCall["arguments"] {
  if (v === undefined) return {};
  if (isObject(v)) return v;
  if (rawTextAllowed && typeof v === "string") return v;
  throw invalid(field, rawTextAllowed ? "must be an object or a JSON text" : "must be an object");
}

function optionalText(v: unknown, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalid(field, "must be a string or null");
  return v;
}

function parseCalls(v: unknown, field: string): ServedToolCall[] {
  if (!Array.isArray(v) || v.length === 0) throw invalid(field, "must be a non-empty list of tool calls");
  return v.map((c, i) => {
    const at = `${field}.${i}`;
    if (!isObject(c)) throw invalid(at, "must be an object {tool_name, arguments}");
    const name = toolName(c.tool_name ?? c.name, `${at}.tool_name`);
    const call: ServedToolCall = { name, arguments: toolArguments(c.arguments, `${at}.arguments`, true) };
    if (c.id !== undefined) {
      if (typeof c.id !== "string") throw invalid(`${at}.id`, "must be a string");
      call.id = c.id;
    }
    return call;
  });
}

/** `prefix` is where the action sits in the message (`data` on WS, `action` over HTTP), for the field names. */
export function parseAction(action: unknown, prefix: string): ParsedAction {
  if (!isObject(action)) throw invalid(prefix, "must be an object (the action)");
  const type = action.type;
  if (typeof type !== "string" || !(type in FIELDS)) {
    throw invalid(`${prefix}.type`, `must be one of ${Object.keys(FIELDS).join(", ")}`);
  }
  const allowed = FIELDS[type] ?? [];
  for (const key of Object.keys(action)) {
    if (!allowed.includes(key)) throw invalid(`${prefix}.${key}`, `extra field not permitted in a ${type} action`);
  }
  if (action.metadata !== undefined && !isObject(action.metadata)) throw invalid(`${prefix}.metadata`, "must be an object");
  switch (type) {
    case "list_tools":
      return { kind: "list_tools" };
    case "call_tool": {
      const name = toolName(action.tool_name, `${prefix}.tool_name`);
      return {
        kind: "call",
        calls: [{ name, arguments: toolArguments(action.arguments, `${prefix}.arguments`, false) }],
        content: null,
      };
    }
    case "call_tools":
      return {
        kind: "call",
        calls: parseCalls(action.tool_calls, `${prefix}.tool_calls`),
        content: optionalText(action.content, `${prefix}.content`),
      };
    default:
      return { kind: "finish", content: optionalText(action.content, `${prefix}.content`) };
  }
}

/** A reset's data (OpenEnv's ResetRequest: seed ≥ 0, episode_id ≤ 255 chars; extra keys allowed) plus rlenv's task_id and environment. */
export function parseReset(
  data: unknown,
  prefix: string,
): {
  task_id?: string;
  seed?: number;
  episode_id?: string;
  environment?: string;
} {
  if (data === undefined || data === null) return {};
  if (!isObject(data)) throw invalid(prefix, "must be an object");
  const out: { task_id?: string; seed?: number; episode_id?: string; environment?: string } = {};
  if (data.seed !== undefined && data.seed !== null) {
    if (typeof data.seed !== "number" || !Number.isInteger(data.seed) || data.seed < 0) {
      throw invalid(`${prefix}.seed`, "must be an integer ≥ 0");
    }
    out.seed = data.seed;
  }
  for (const key of ["task_id", "episode_id", "environment"] as const) {
    const v = data[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" || v === "") throw invalid(`${prefix}.${key}`, "must be a non-empty string");
    if (key === "episode_id" && v.length > 255) throw invalid(`${prefix}.${key}`, "must be at most 255 characters");
    out[key] = v;
  }
  // Other keys are ignored, as OpenEnv passes a reset only the keywords its environment takes.
  return out;
}
