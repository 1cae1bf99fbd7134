/**
 * The errors a tool may throw, and what each means to the engine. They live with the
 * domains' contract (types.ts), not in the engine, so a domain never reaches into rollout/.
 */

/**
 * A mistake the agent can read and fix (a bad argument, a missing file, an object that is
 * not in the scene): defineTool turns it into an error observation and the rollout goes on.
 */
export class ToolError extends Error {
  override name = "ToolError";
}

/** The sandbox could not be started or reset: an infrastructure failure, so the rollout is retried. */
export class SandboxInfraError extends Error {
  override name = "SandboxInfraError";
}

/**
 * A service a verifier relies on outside the sandbox (the judge model's server) did not
 * answer: down, refusing, timing out, overloaded, or refusing the credentials. The
 * machinery's fault, never a score: the rollout ends as an infrastructure error, is retried,
 * and stays out of the scores.
 */
export class VerifierInfraError extends Error {
  override name = "VerifierInfraError";
}

/**
 * The program a tool drives inside the sandbox broke mid-rollout (Blender crashed or hung
 * while running the agent's step). The rollout ends as an error with the reason, and is
 * not retried: the agent's own action is the likely cause, so a retry would repeat it.
 */
export class ToolCrashError extends Error {
  override name = "ToolCrashError";
}
