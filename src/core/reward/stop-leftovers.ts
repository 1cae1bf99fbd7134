import type { Sandbox } from "../model/sandbox";

/**
 * Before a verifier runs in the rollout's sandbox, every process the agent's commands left
 * running is killed. A background loop started by the agent would otherwise still run beside
 * the tests: rewriting the JUnit report after the test run wrote it, or writing into the test
 * process's output through /proc, it could set the score. A sandbox that cannot stop them
 * (some survive, a fork bomb outrunning the kill) is not graded: the verifier fails, scoring 0.
 */
export async function stopLeftovers(sb: Sandbox): Promise<void> {
  if (!sb.stopProcesses) return;
  const left = await sb.stopProcesses();
  if (left.length > 0)
    throw new Error(
      `processes the agent left running survived being stopped before the tests: ${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`,
    );
}
