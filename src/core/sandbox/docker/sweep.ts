import os from "node:os";
import type Docker from "dockerode";
import { ownerAlive } from "../../util/owner";
import { HOST_LABEL, OWNER_LABEL, OWNER_START_LABEL } from "./container";
import { removeContainer } from "./remove-container";

/**
 * Removes sandbox containers (and their workdir volumes) whose owner process on this host is
 * gone: what a crashed or SIGKILLed CLI, extension or runner left behind (their agents exit
 * when the owner's connection drops, so this catches what predates that or an engine that
 * kept stdin open). The owner is told by pid and start time: a reused pid does not keep a dead
 * owner's containers. Returns their names.
 */
export async function sweepOrphanContainers(docker: Docker): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL, `${HOST_LABEL}=${os.hostname()}`] } });
  const orphans = list.filter((c) => !ownerAlive({ pid: Number(c.Labels[OWNER_LABEL]), start: c.Labels[OWNER_START_LABEL] ?? null }));
  await Promise.all(
    orphans.map(async (c) => {
      // Gone already, or the engine is removing it already (an auto-removed container whose
      // agent just exited with its owner): removeContainer waits, so a sweep that returns has left no orphan behind.
      // Any other refusal leaves it to the next sweep rather than fail the command that swept.
      await removeContainer(docker.getContainer(c.Id)).catch(() => {});
    }),
  );
  return orphans.map((c) => c.Names[0]?.replace(/^\//, "") ?? c.Id);
}
