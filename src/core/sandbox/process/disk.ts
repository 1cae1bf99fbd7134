import { spawnSync } from "node:child_process";

/**
 * A process sandbox's disk quota: its host folder (the workdir, /tmp and the unshare root's
 * mount point) is a tmpfs of the request's size, mounted nosuid,nodev, so a model that fills
 * its disk fails its own writes ('No space left on device') instead of the host's disk, and
 * nothing it leaves there runs setuid or reaches a device from the host's side either. Only
 * root may mount it; elsewhere (bwrap as a user) the folders stay plain host folders, bounded
 * per file by RLIMIT_FSIZE alone. The tmpfs's pages count against the memory of whoever writes
 * them: the sandbox's cgroup for what its commands write.
 */

/** Mounts the quota at `root` (an empty folder); false when this host does not let us (not root, no mount). */
export function mountDisk(root: string, bytes: number): boolean {
  if (process.getuid?.() !== 0) return false;
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${bytes},nosuid,nodev,mode=0700`, "rlenv-disk", root], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
  });
  return r.status === 0;
}

/** Unmounts a quota mounted at `root` (lazily: a process still in it does not keep it); a folder without one is left as it is. */
export function unmountDisk(root: string): void {
  if (process.getuid?.() !== 0) return;
  spawnSync("umount", ["-l", root], { stdio: "ignore", timeout: 10_000 });
}
