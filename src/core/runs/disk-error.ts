import { readFileSync, realpathSync, statfsSync } from "node:fs";
import path from "node:path";

/**
 * Writing a run's own file (a trajectory, run.json, summary.json) failed on the host: the runs folder's
 * disk is full or refused the write. The machinery's fault and the host's, never the sandbox's nor the
 * model's; the run stops, its lines whole, and `--resume` goes on once there is room.
 */
export class RunsDiskError extends Error {
  override name = "RunsDiskError";
  constructor(
    message: string,
    readonly file: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Codes that say the disk (or the user's quota on it) has no room left. */
const FULL = new Set(["ENOSPC", "EDQUOT"]);

/** The mount point and file system type holding `file` (the longest mount point above it in /proc/self/mounts). */
export function diskOf(file: string): { mount: string; type: string } | undefined {
  let real: string;
  try {
    real = realpathSync(path.dirname(file));
  } catch {
    return undefined;
  }
  let best: { mount: string; type: string } | undefined;
  let mounts: string;
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return undefined;
  }
  for (const line of mounts.split("\n")) {
    const [, rawMount, type] = line.split(" ");
    if (!rawMount || !type) continue;
    // Spaces and the like are octal escapes in /proc/mounts.
    const mount = rawMount.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
    const inside = mount === "/" || real === mount || real.startsWith(`${mount}/`);
    if (inside && (!best || mount.length >= best.mount.length)) best = { mount, type };
  }
  return best;
}

/** "12.0 KiB free of 200 KiB" for the disk holding `file`, or undefined where it cannot be read. */
function room(file: string): string | undefined {
  try {
    const s = statfsSync(path.dirname(file));
    const kib = (blocks: number) => `${((blocks * s.bsize) / 1024).toFixed(1)} KiB`;
    return `${kib(s.bavail)} free of ${kib(s.blocks)}`;
  } catch {
    return undefined;
  }
}

/** The error for a failed write of a run's file: which file, which disk, and whose fault it is. */
export function runsDiskError(file: string, cause: unknown): RunsDiskError {
  const code = (cause as NodeJS.ErrnoException).code;
  const disk = diskOf(file);
  const where = disk ? `the disk mounted at ${disk.mount} (${disk.type}${room(file) ? `, ${room(file)}` : ""})` : "its disk";
  const what = code && FULL.has(code) ? `no space left on ${where}` : `${(cause as Error).message} (on ${where})`;
  return new RunsDiskError(
    `writing ${file} failed: ${what}. The host's runs folder is at fault, not the sandbox or the model: free space, then resume the run (rlenv run --resume)`,
    file,
    code,
  );
}
