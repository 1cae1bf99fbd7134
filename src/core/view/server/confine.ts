import { existsSync, realpathSync } from "node:fs";
import path from "node:path";

/** Whether `p` is `dir` or inside it (both real paths). */
export function isInside(dir: string, p: string): boolean {
  const back = path.relative(dir, p);
  return back === "" || (!back.startsWith(`..${path.sep}`) && back !== ".." && !path.isAbsolute(back));
}

/**
 * A runner's merged run folder (`jobs/<id>/run`) links its `rollouts` to a work unit's
 * folder in the same job on purpose (see remote/merge.ts); links are followed within the
 * job folder there, as the pull stream does, and nowhere else.
 */
function mergedRunJob(realRoot: string): string | null {
  const job = path.dirname(realRoot);
  return path.basename(realRoot) === "run" && existsSync(path.join(job, "job.json")) ? job : null;
}

/**
 * The folder a view may read from, by real path: a request path is resolved with its
 * links and refused when it lands outside (`rollouts/x.jsonl → /etc/passwd`).
 */
export class Confinement {
  /** The real path every served file must resolve inside. */
  readonly boundary: string;

  constructor(root: string) {
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      real = path.resolve(root);
    }
    this.boundary = mergedRunJob(real) ?? real;
  }

  /**
   * The real path of an existing file or folder when it stays inside, null when it
   * links out; a path that does not exist is returned as given (the caller reports it).
   */
  realInside(abs: string): string | null {
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      return abs;
    }
    return isInside(this.boundary, real) ? real : null;
  }
}
