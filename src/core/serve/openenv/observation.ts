import type { ChatMessage, ToolSpec } from "../../policy/types";
import { ServeError, type ServedObservation } from "../session-types";
import type { StepPayload } from "./wire";

/**
 * ServedObservation → OpenEnv's `{observation, reward, done}` (serialize_observation).
 * A reset answers like a ListToolsObservation (`tools`, with `input_schema`) plus the task's
 * prompt and messages; a tool step answers like a CallToolObservation (`tool_name`, `result`
 * with MCP `content` and the `data` MCPToolClient.call_tool returns, `error`), never with a
 * `tools` key, since OpenEnv's MCP client tells the two apart by that key. OpenEnv's own
 * serializer drops `metadata`; rlenv keeps it inside the observation (where MCPToolClient
 * reads it) to carry the reward's components, the turn and the trajectory file.
 */

export function toolsForWire(
  tools: readonly ToolSpec[],
): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

function text(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join("");
}

/** The episode's facts an OpenEnv client finds in `observation.metadata`. */
export function observationMetadata(obs: ServedObservation, sessionId: string): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    session_id: sessionId,
    episode_id: obs.episode_id,
    environment: obs.environment,
    task_id: obs.task_id,
    turn: obs.turn,
    max_turns: obs.max_turns,
    trajectory: obs.trajectory,
  };
  if (obs.score) {
    meta.status = obs.score.status;
    if (obs.score.reason) meta.reason = obs.score.reason;
    meta.reward_components = obs.score.components;
  }
  return meta;
}

/** An episode the machinery failed (sandbox lost, judge down) is an error reply, never a reward. */
function refuseInfra(obs: ServedObservation): void {
  if (obs.done && obs.score?.infra) {
    throw new ServeError("infra", `episode ${obs.episode_id} failed in the machinery: ${obs.score.reason ?? obs.score.status}`);
  }
}

function rewardOf(obs: ServedObservation): number | null {
  return obs.done && obs.score ? obs.score.reward : null;
}

export function resetPayload(obs: ServedObservation, sessionId: string): StepPayload {
  refuseInfra(obs);
  const lastUser = [...obs.messages].reverse().find((m) => m.role === "user");
  return {
    observation: {
      prompt: lastUser ? text(lastUser.content) : "",
      messages: obs.messages,
      tools: toolsForWire(obs.tools),
      metadata: observationMetadata(obs, sessionId),
    },
    reward: rewardOf(obs),
    done: obs.done,
  };
}

/** A tool's answer as MCP's CallToolResult, as OpenEnv's MCPEnvironment dumps it (plus MCP's camelCase isError). */
function callToolResult(r: ServedObservation["tool_results"][number]): Record<string, unknown> {
  return {
    content: [{ type: "text", text: r.content }],
    structured_content: null,
    data: r.content,
    is_error: r.is_error,
    isError: r.is_error,
  };
}

export function stepPayload(obs: ServedObservation, sessionId: string): StepPayload {
  refuseInfra(obs);
  const first = obs.tool_results[0];
  const observation: Record<string, unknown> = {
    tool_name: first?.name ?? "",
    result: first ? callToolResult(first) : null,
    error: null,
    // Every call of the turn, in order (a `call_tools` action plays several).
    tool_results: obs.tool_results.map((r) => ({ tool_call_id: r.tool_call_id, tool_name: r.name, result: callToolResult(r) })),
    // What the environment said since (a later stage's prompt), if anything.
    messages: obs.messages,
    metadata: observationMetadata(obs, sessionId),
  };
  return { observation, reward: rewardOf(obs), done: obs.done };
}

export function listToolsPayload(tools: readonly ToolSpec[]): StepPayload {
  return { observation: { tools: toolsForWire(tools), metadata: {} }, reward: null, done: false };
}
