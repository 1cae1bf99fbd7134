import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ServeContext } from "../serve-context";

/**
 * GET /metadata (EnvironmentMetadata) and GET /schema (SchemaResponse: action, observation,
 * state), as OpenEnv answers them. A server of several environments names them all in one
 * metadata object; a reset picks one with `environment`.
 */

export function metadataOf(ctx: ServeContext): Record<string, unknown> {
  const list = ctx.environments.list;
  const first = list[0];
  if (list.length === 1 && first) {
    const m = first.env.manifest;
    const readme = path.join(first.dir, "README.md");
    return {
      name: m.name,
      description: m.description || `rlenv environment ${m.name} (${first.tasks.length} tasks)`,
      readme_content: existsSync(readme) ? readFileSync(readme, "utf8") : null,
      version: m.version ?? null,
      author: null,
      documentation_url: null,
    };
  }
  return {
    name: list.map((e) => e.name).join("+"),
    description: `rlenv serve: ${list.map((e) => `${e.name} (${e.tasks.length} tasks)`).join(", ")}; a reset names one with "environment"`,
    readme_content: null,
    version: null,
    author: null,
    documentation_url: null,
  };
}

const metadataField = { type: "object", additionalProperties: true, title: "Metadata", description: "Additional metadata" };

const CALL_TOOL = {
  title: "CallToolAction",
  type: "object",
  additionalProperties: false,
  properties: {
    metadata: metadataField,
    type: { const: "call_tool", default: "call_tool", type: "string", title: "Type" },
    tool_name: { type: "string", title: "Tool Name", description: "Name of the tool to call" },
    arguments: { type: "object", additionalProperties: true, title: "Arguments", description: "Arguments to pass to the tool" },
  },
  required: ["tool_name"],
};

const LIST_TOOLS = {
  title: "ListToolsAction",
  type: "object",
  additionalProperties: false,
  properties: { metadata: metadataField, type: { const: "list_tools", default: "list_tools", type: "string", title: "Type" } },
};

const CALL_TOOLS = {
  title: "CallToolsAction",
  description: "rlenv: several tool calls as one agent turn",
  type: "object",
  additionalProperties: false,
  properties: {
    metadata: metadataField,
    type: { const: "call_tools", type: "string" },
    tool_calls: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { tool_name: { type: "string" }, arguments: { type: ["object", "string"] }, id: { type: "string" } },
        required: ["tool_name"],
      },
    },
    content: { type: ["string", "null"], description: "The assistant's text of the turn" },
  },
  required: ["type", "tool_calls"],
};

const FINISH = {
  title: "FinishAction",
  description: "rlenv: end the episode with the agent's final reply (no tool call)",
  type: "object",
  additionalProperties: false,
  properties: { metadata: metadataField, type: { const: "finish", type: "string" }, content: { type: ["string", "null"] } },
  required: ["type"],
};

const OBSERVATION = {
  title: "RlenvObservation",
  type: "object",
  properties: {
    done: { type: "boolean", default: false, title: "Done" },
    reward: { anyOf: [{ type: "boolean" }, { type: "integer" }, { type: "number" }, { type: "null" }], default: null, title: "Reward" },
    metadata: {
      ...metadataField,
      description: "session_id, episode_id, task_id, turn, max_turns, trajectory; with done: status, reward_components",
    },
    prompt: { type: "string", description: "At reset: the task's prompt" },
    messages: { type: "array", description: "Chat messages said since the last observation" },
    tools: { type: "array", description: "At reset and list_tools: name, description, input_schema" },
    tool_name: { type: "string" },
    result: { description: "MCP CallToolResult: content, data, is_error" },
    error: { anyOf: [{ type: "object" }, { type: "null" }] },
    tool_results: { type: "array" },
  },
};

const STATE = {
  title: "State",
  type: "object",
  additionalProperties: true,
  properties: {
    episode_id: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Episode Id" },
    step_count: { type: "integer", minimum: 0, default: 0, title: "Step Count" },
    session_id: { type: "string" },
    environment: { anyOf: [{ type: "string" }, { type: "null" }] },
    task_id: { anyOf: [{ type: "string" }, { type: "null" }] },
    done: { type: "boolean" },
    forked_from: { type: "object", properties: { episode_id: { type: "string" }, turn: { type: "integer" } } },
  },
};

export function schemaOf(): Record<string, unknown> {
  return {
    action: { title: "Action", oneOf: [CALL_TOOL, LIST_TOOLS, CALL_TOOLS, FINISH], discriminator: { propertyName: "type" } },
    observation: OBSERVATION,
    state: STATE,
  };
}
