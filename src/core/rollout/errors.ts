// The errors tools throw are part of the domains' contract; the engine re-exports them for its own modules.
export { SandboxInfraError, ToolCrashError, VerifierInfraError } from "../model/errors";

/** The rollout's own deadline passed (as opposed to a cancellation from outside). */
export class RolloutTimeoutError extends Error {
  override name = "RolloutTimeoutError";
}
