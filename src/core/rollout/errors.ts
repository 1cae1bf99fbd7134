/** The sandbox could not be started or reset: an infrastructure failure, so the rollout is retried. */
export class SandboxInfraError extends Error {
  override name = "SandboxInfraError";
}

/**
 * The program a tool drives inside the sandbox broke mid-rollout (Blender crashed or hung
 * while running the agent's step). The rollout ends as an error with the reason, and is
 * not retried: the agent's own action is the likely cause, so a retry would repeat it.
 */
export class ToolCrashError extends Error {
  override name = "ToolCrashError";
}

/** The rollout's own deadline passed (as opposed to a cancellation from outside). */
export class RolloutTimeoutError extends Error {
  override name = "RolloutTimeoutError";
}
