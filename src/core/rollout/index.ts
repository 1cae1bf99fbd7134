export {
  runEnvironment,
  selectTasks,
  type PolicyFactory,
  type RunEnvironmentOptions,
  type RunEnvironmentResult,
  type RunProgress,
} from "./run-environment";
export {
  runRollout,
  type PendingToolCall,
  type RolloutHooks,
  type RolloutMeter,
  type RolloutResult,
  type RunRolloutOptions,
} from "./run-rollout";
export { buildToolset, type Toolset } from "./toolset";
export { TrajectoryWriter } from "./trajectory-writer";
export { Limiter } from "./limiter";
export { renderTemplate } from "../model/prompt-template";
export { truncateOutput, truncateText } from "./truncate";
export { rolloutId, newRunId } from "./ids";
export { RolloutTimeoutError, SandboxInfraError, ToolCrashError } from "./errors";
