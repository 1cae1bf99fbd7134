import type Docker from "dockerode";
import { withDeadline } from "../../util/deadline";

/** How long a removal waits for a container the engine is already removing. */
const REMOVAL_WAIT_MS = 10_000;

/**
 * Removes a container with its volumes, and returns once it is gone. A container whose main
 * process (the agent) has just exited is being auto-removed by the engine already: remove then
 * answers 409 at once, so that case waits for the engine's own removal, within a bound. A
 * caller that returned on the 409 left a container behind for a moment ("Removal In Progress"),
 * which a shutdown or sweep must not.
 */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (e) {
    const status = (e as { statusCode?: number }).statusCode;
    if (status === 404) return;
    if (status !== 409) throw e;
    await withDeadline(
      container.wait({ condition: "removed" }).catch(() => {}),
      REMOVAL_WAIT_MS,
    );
  }
}
