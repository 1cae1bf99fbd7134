import type { LoadedTask } from "../model/environment";
import type { PolicyConfig } from "../schema/run";
import { policyConfigProblem } from "./config-check";
import { NopPolicy } from "./nop";
import { apiKeyFromEnv, OpenAIPolicy } from "./openai";
import { TokenInOutPolicy } from "./openai-tokens";
import { OraclePolicy } from "./oracle";
import { findReplayFile, ReplayPolicy } from "./replay";
import type { Policy } from "./types";
import { ChatTokenizer } from "../tokens/chat-template";
import { toolCallParser } from "../tokens/tool-call-parsers";

/** Secrets a policy may need that are not in its config (the editor keeps its key in SecretStorage). */
export interface PolicySecrets {
  /** The OpenAI-compatible server's key; RLENV_API_KEY / OPENAI_API_KEY when absent. */
  apiKey?: string;
}

/** A fresh policy for one rollout (policies keep per-rollout state: the oracle's plan, the replay position). */
export function createPolicy(config: PolicyConfig, task: LoadedTask, sample: number, secrets: PolicySecrets = {}): Policy {
  const problem = policyConfigProblem(config);
  if (problem) throw new Error(problem.message);
  switch (config.kind) {
    case "oracle":
      return new OraclePolicy(task.solution);
    case "nop":
      return new NopPolicy();
    case "replay":
      return new ReplayPolicy(findReplayFile(config.replay ?? "", task.id, sample));
    case "openai": {
      const baseURL = config.base_url ?? process.env.RLENV_BASE_URL ?? process.env.OPENAI_BASE_URL;
      if (!baseURL) throw new Error("policy openai needs a base URL (--base-url, RLENV_BASE_URL or OPENAI_BASE_URL)");
      const model = config.model ?? "";
      if (config.tokens) return tokenPolicy(config, baseURL, model, sample, secrets);
      return new OpenAIPolicy({
        baseURL,
        model,
        apiKey: secrets.apiKey ?? apiKeyFromEnv(),
        ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
        ...(config.top_p !== undefined ? { topP: config.top_p } : {}),
        ...(config.max_tokens !== undefined ? { maxTokens: config.max_tokens } : {}),
        ...(config.seed !== undefined ? { seed: config.seed + sample } : {}),
        ...(config.timeout_ms !== undefined ? { timeoutMs: config.timeout_ms } : {}),
        ...(config.stream ? { stream: true } : {}),
      });
    }
    case "human":
      // A person answers each turn (src/core/policy/human.ts); only the editor can ask one (policyConfigProblem refused it).
      throw new Error("policy human cannot be made here");
    case "served":
      // A trainer's client plays each turn through `rlenv serve` (src/core/serve/client-turns.ts).
      throw new Error("policy served cannot be made here");
  }
}

/** A token-in/token-out policy; the tokenizer folder is loaded once per process and shared by its rollouts. */
function tokenPolicy(config: PolicyConfig, baseURL: string, model: string, sample: number, secrets: PolicySecrets): Policy {
  const dir = config.tokenizer ?? "";
  let tokenizer = tokenizers.get(dir);
  if (!tokenizer) {
    tokenizer = new ChatTokenizer(dir);
    tokenizers.set(dir, tokenizer);
  }
  return new TokenInOutPolicy({
    baseURL,
    model,
    tokenizerDir: dir,
    tokenizer,
    apiKey: secrets.apiKey ?? apiKeyFromEnv(),
    ...(config.tool_parser ? { parser: toolCallParser(config.tool_parser) } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.top_p !== undefined ? { topP: config.top_p } : {}),
    ...(config.max_tokens !== undefined ? { maxTokens: config.max_tokens } : {}),
    ...(config.seed !== undefined ? { seed: config.seed + sample } : {}),
    ...(config.timeout_ms !== undefined ? { timeoutMs: config.timeout_ms } : {}),
  });
}

const tokenizers = new Map<string, ChatTokenizer>();
