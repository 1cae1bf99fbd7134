import { readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ownerAlive, ownerOfName } from "../owner";
import { sweepOrphanCgroups } from "./cgroup";
import { unmountDisk } from "./disk";

/** Where process sandboxes live unless a provider is told otherwise. */
export function defaultSandboxBase(): string {
  return path.join(os.tmpdir(), "rlenv-sandboxes");
}

/**
 * Removes the sandbox folders and cgroups whose owner is gone: what a SIGKILLed or crashed
 * run left. Owners are told by pid and start time, so a pid the kernel has since given to
 * another process does not keep a dead run's leftovers. Cheap when there is nothing to do
 * (two directory listings), so every `rlenv` command runs it; one it may not remove (another
 * user's) is left alone. Returns how many it removed.
 */
export function sweepProcessOrphans(baseDir = defaultSandboxBase()): number {
  let removed = sweepOrphanCgroups();
  let names: string[] = [];
  try {
    names = readdirSync(baseDir);
  } catch {
    return removed;
  }
  for (const n of names) {
    const owner = ownerOfName(n);
    if (!owner || ownerAlive(owner)) continue;
    try {
      unmountDisk(path.join(baseDir, n));
      rmSync(path.join(baseDir, n), { recursive: true, force: true });
      removed++;
    } catch {}
  }
  return removed;
}
