/** The sandbox could not be started or reset: an infrastructure failure, so the rollout is retried. */
export class SandboxInfraError extends Error {
  override name = "SandboxInfraError";
}

/** The rollout's own deadline passed (as opposed to a cancellation from outside). */
export class RolloutTimeoutError extends Error {
  override name = "RolloutTimeoutError";
}
