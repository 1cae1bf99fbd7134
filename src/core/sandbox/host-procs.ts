import { readdirSync, readFileSync } from "node:fs";

/**
 * A sandbox's processes as the host sees them in /proc: what both backends' deadline backstops
 * use to kill a command from outside when the sandbox's own agent is starved of CPU and cannot.
 */

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): state, ppid, ... */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // gone meanwhile
  }
}

/**
 * Whether any thread of the process still runs. Not its /proc/<pid>/stat state alone: a process
 * whose main thread exited alone reads as a zombie there while its other threads run on.
 */
export function liveProcess(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false; // gone
  }
  return tids.some((t) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && state !== "X";
    } catch {
      return false;
    }
  });
}

/** Host pids of every live process below `root` (its children, theirs, and so on), from /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const fields = statFields(pid);
    // Dead already, only waiting for its parent (unless a thread of it runs on: see liveProcess).
    if (!fields || (fields[0] === "Z" && !liveProcess(pid))) continue;
    const ppid = Number(fields[1]);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const c of children.get(stack.pop()!) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/**
 * SIGKILLs every process below `root` but those in `spared` (the sandbox's own machinery),
 * again while a fork races it, for at most `forMs`. Returns how many kills it sent; throws
 * when the host may not kill them (EPERM: another user's processes), having killed none.
 */
export function killBelow(root: number, spared: ReadonlySet<number>, forMs = 1000): number {
  let killed = 0;
  const until = performance.now() + forMs;
  for (;;) {
    const left = descendants(root).filter((p) => !spared.has(p));
    if (left.length === 0 || performance.now() > until) return killed;
    for (const p of left) {
      try {
        process.kill(p, "SIGKILL");
        killed++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EPERM" && killed === 0) throw e;
      }
    }
  }
}

/** The pids a process has in each pid namespace it is in, outermost first (its NSpid line); null when it is gone. */
export function namespacePids(pid: number): number[] | null {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return line?.[1] ? line[1].trim().split(/\s+/).map(Number) : [pid];
  } catch {
    return null;
  }
}

/** Whether the host process `pid` is in a cgroup whose path names `id` (a container's full id). */
export function inCgroupOf(pid: number, id: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, "utf8").includes(id);
  } catch {
    return false;
  }
}
