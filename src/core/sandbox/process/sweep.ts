import { readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ownerAlive, ownerOfName } from "../../util/owner";
import { sweepOrphanCgroups } from "./cgroup";
import { unmountDisk } from "./disk";

/**
 * Where process sandboxes live unless a provider is told otherwise: <tmpdir>/rlenv-sandboxes. As
 * root, bwrap's sandboxes run as an unprivileged host uid (host-identity.ts) that must pass
 * through every folder above its own; a private TMPDIR (0700) would stop it at the door, so then
 * they live under /tmp (sticky, searchable by all; each sandbox's own folder stays 0700).
 */
export function defaultSandboxBase(): string {
  const tmp = os.tmpdir();
  if (process.getuid?.() === 0 && !searchableByAll(tmp)) return path.join("/tmp", "rlenv-sandboxes");
  return path.join(tmp, "rlenv-sandboxes");
}

/** Whether every folder from `dir` up to / lets any user pass through (the x bit for others). */
function searchableByAll(dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    if (path.dirname(d) === d) return true;
  }
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
