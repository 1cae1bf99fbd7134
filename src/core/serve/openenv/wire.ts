/**
 * OpenEnv's wire vocabulary, as meta-pytorch/OpenEnv spells it: the WebSocket error codes
 * (`WSErrorCode` in core/env_server/types.py), the JSON-RPC 2.0 error codes
 * (`JsonRpcErrorCode` in mcp_types.py) and the tool names an environment may never offer
 * (`RESERVED_TOOL_NAMES`). Kept verbatim so any OpenEnv client reads our replies as theirs.
 */

export const WSErrorCode = {
  INVALID_JSON: "INVALID_JSON",
  UNKNOWN_TYPE: "UNKNOWN_TYPE",
  VALIDATION_ERROR: "VALIDATION_ERROR",
  EXECUTION_ERROR: "EXECUTION_ERROR",
  CAPACITY_REACHED: "CAPACITY_REACHED",
  FACTORY_ERROR: "FACTORY_ERROR",
  SESSION_ERROR: "SESSION_ERROR",
} as const;
export type WSErrorCode = (typeof WSErrorCode)[keyof typeof WSErrorCode];

export const JsonRpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;
export type JsonRpcErrorCode = (typeof JsonRpcErrorCode)[keyof typeof JsonRpcErrorCode];

/** JsonRpcError.from_code's default messages. */
export const JSON_RPC_DEFAULT_MESSAGE: Record<JsonRpcErrorCode, string> = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
  [-32000]: "Server error",
};

/** Never offered as tools: the agent must not see the episode's own controls (OpenEnv's RESERVED_TOOL_NAMES). */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(["reset", "step", "state", "close"]);

/** A JSON-RPC 2.0 response: `result` or `error`, never both (JsonRpcResponse.model_dump). */
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: string | number | null; result: unknown }
  | { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string; data: unknown } };

export function rpcSuccess(id: string | number | null, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

export function rpcError(id: string | number | null, code: JsonRpcErrorCode, message?: string, data: unknown = null): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error: { code, message: message ?? JSON_RPC_DEFAULT_MESSAGE[code], data } };
}

/** The WS envelope of every reply: `{type, data}` (WSObservationResponse, WSStateResponse, WSErrorResponse, WSMCPResponse). */
export interface WsReply {
  type: "observation" | "state" | "error" | "mcp" | "fork";
  data: Record<string, unknown>;
}

/** OpenEnv's step/reset result: `serialize_observation`'s `{observation, reward, done}`. */
export interface StepPayload {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}
