import os from "node:os";
import type Docker from "dockerode";
import { ownerAlive } from "../owner";
import { HOST_LABEL, OWNER_LABEL, OWNER_START_LABEL } from "./container";

/**
 * Removes sandbox containers (and their workdir volumes) whose owner process on this host is
 * gone: what a crashed or SIGKILLed CLI, extension or runner left behind (their agents exit
 * when the owner's connection drops, so this catches what predates that or an engine that
 * kept stdin open). The owner is told by pid and start time: a reused pid does not keep a dead
 * owner's containers. Returns their names.
 */
/** How long a sweep waits for a container the engine is already removing. */
const REMOVAL_WAIT_MS = 10_000;

export async function sweepOrphanContainers(docker: Docker): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL, `${HOST_LABEL}=${os.hostname()}`] } });
  const orphans = list.filter((c) => !ownerAlive({ pid: Number(c.Labels[OWNER_LABEL]), start: c.Labels[OWNER_START_LABEL] ?? null }));
  await Promise.all(
    orphans.map(async (c) => {
      const container = docker.getContainer(c.Id);
      try {
        await container.remove({ force: true, v: true });
      } catch (e) {
        // Gone already (404), or the engine is removing it already (409: an auto-removed
        // container whose agent just exited with its owner): wait until it is gone, within a
        // bound, so a sweep that returns has left no orphan behind.
        if ((e as { statusCode?: number }).statusCode === 404) return;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          container.wait({ condition: "removed" }).catch(() => {}),
          new Promise((r) => {
            timer = setTimeout(r, REMOVAL_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
      }
    }),
  );
  return orphans.map((c) => c.Names[0]?.replace(/^\//, "") ?? c.Id);
}
