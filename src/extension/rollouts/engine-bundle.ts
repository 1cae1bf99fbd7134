/**
 * The rollout engine as the extension loads it: its own bundle (dist/extension-engine.js),
 * required on the first Validate or Rollout so activation never compiles it.
 */
export { runEnvironment } from "../../core/rollout/index";
export { OpenAIPolicy } from "../../core/policy/index";
// The rollout debugger (issue 11): its controller, adapter and what a session builds.
export { RolloutDebugger } from "../../core/debug/controller";
export { RolloutDebugSession } from "../debug/adapter";
export { createPolicy } from "../../core/policy/index";
export { createSandboxProvider } from "../../core/sandbox/index";
// The domains' static task checks, for the editor's diagnostics (see environments/index.ts).
export { domainTaskProblems } from "../../core/domains/registry";
