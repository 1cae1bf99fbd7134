/**
 * The words a sandbox's lost-reason starts with when a command run in it killed its agent
 * (the engine's events show no kill from outside and no OOM kill): the rollout's own doing.
 * A rollout that loses its sandbox this way fails as the agent's error, scored 0, instead of
 * an infra error that is retried and kept out of the scores, which would let a policy escape
 * any rollout it is failing by killing the agent.
 */
export const KILLED_BY_OWN_COMMANDS = "a command run in the sandbox killed its agent";

/** Whether a sandbox's lost-reason says its own commands killed it. */
export function lostToOwnCommands(reason: string | null | undefined): boolean {
  return typeof reason === "string" && reason.startsWith(KILLED_BY_OWN_COMMANDS);
}
