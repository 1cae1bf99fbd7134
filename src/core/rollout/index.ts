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
// The episode engine: one task in its sandbox, driven step by step (the policy loop, the debugger, a server).
export { Episode } from "./episode";
export { StagedEpisode } from "./staged-episode";
export { openEpisode } from "./open-episode";
export { type EpisodeTrajectory, MemoryTrajectory } from "./memory-trajectory";
export type {
  EpisodeHooks,
  EpisodeOptions,
  EpisodePlayer,
  EpisodeScore,
  EpisodeStart,
  Preparer,
  StepResult,
} from "./rollout-types";
export { buildToolset, type Toolset } from "./toolset";
export { TrajectoryWriter } from "./trajectory-writer";
export { Limiter } from "./limiter";
export { renderTemplate } from "../model/prompt-template";
export { truncateOutput, truncateText } from "./truncate";
export { rolloutId, newRunId } from "./ids";
export { RolloutTimeoutError, SandboxInfraError, ToolCrashError } from "./errors";
