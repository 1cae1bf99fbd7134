/**
 * The rollout engine as the extension loads it: its own bundle (dist/extension-engine.js),
 * required on the first Validate or Rollout so activation never compiles it.
 */
export { runEnvironment } from "../../core/rollout/index";
export { OpenAIPolicy } from "../../core/policy/index";
