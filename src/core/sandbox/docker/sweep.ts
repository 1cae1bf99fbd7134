import os from "node:os";
import type Docker from "dockerode";
import { isAlive } from "../process/provider";
import { HOST_LABEL, OWNER_LABEL } from "./container";

/**
 * Removes sandbox containers (and their workdir volumes) whose owner process on this host is
 * gone: what a crashed or SIGKILLed CLI, extension or runner left behind. Returns their names.
 */
export async function sweepOrphanContainers(docker: Docker): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL, `${HOST_LABEL}=${os.hostname()}`] } });
  const orphans = list.filter((c) => {
    const pid = Number(c.Labels[OWNER_LABEL]);
    return !Number.isInteger(pid) || (pid !== process.pid && !isAlive(pid));
  });
  await Promise.all(
    orphans.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => {}),
    ),
  );
  return orphans.map((c) => c.Names[0]?.replace(/^\//, "") ?? c.Id);
}
