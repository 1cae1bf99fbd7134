import { PolicyInfraError, PolicyRequestError } from "../policy/types";
import type { RolloutStatus, TrajectoryEvent } from "../schema/trajectory";
import { RolloutTimeoutError, SandboxInfraError, ToolCrashError, VerifierInfraError } from "./errors";
import type { RolloutScope } from "./rollout-scope";

type ErrorEvent = Omit<Extract<TrajectoryEvent, { type: "error" }>, "type" | "seq" | "t">;

/** How a failure ends a rollout: its status and reason, and the error event to record when it is an error. */
export interface RolloutFailure {
  status: RolloutStatus;
  reason: string;
  error?: ErrorEvent;
}

/**
 * What a throw out of the agent loop means. A sandbox lost under it is the cause, whatever
 * broke (a tool program, the engine); the deadline is a timeout, the caller's abort a
 * cancellation; anything else is an error of the policy, the sandbox, a tool or the engine,
 * infra when the machinery (policy server, sandbox) failed rather than the agent.
 */
export async function classifyFailure(caught: unknown, scope: RolloutScope): Promise<RolloutFailure> {
  let e = caught;
  if (!(e instanceof SandboxInfraError) && !scope.outside?.aborted && !scope.startFailure && (await scope.lost())) e = scope.guard.error();
  const why = scope.signal.aborted && !(e instanceof SandboxInfraError) ? (scope.signal.reason as unknown) : e;
  if (why instanceof RolloutTimeoutError) return { status: "timeout", reason: why.message };
  if (scope.outside?.aborted) return { status: "cancelled", reason: "cancelled" };
  const err = e instanceof Error ? e : new Error(String(e));
  const infra = e instanceof PolicyInfraError || e instanceof SandboxInfraError || e instanceof VerifierInfraError;
  const where =
    e instanceof PolicyInfraError || e instanceof PolicyRequestError
      ? "policy"
      : e instanceof SandboxInfraError
        ? "sandbox"
        : e instanceof ToolCrashError
          ? "tool"
          : e instanceof VerifierInfraError
            ? "verifier"
            : "engine";
  return {
    status: "error",
    reason: err.message,
    error: { where, message: err.message, infra, ...(where === "engine" && err.stack ? { stack: err.stack } : {}) },
  };
}
