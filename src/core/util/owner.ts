import { readFileSync } from "node:fs";

/**
 * Who owns a sandbox: a process id and that process's start time. A pid alone is not enough
 * to tell that the owner is gone: once it dies the kernel may give its pid to another
 * process, which would keep the dead owner's sandboxes "alive" for ever. The start time (in
 * clock ticks since boot, field 22 of /proc/PID/stat) tells the two apart. Where /proc is not
 * there, the start is null and only the pid is checked.
 */
export interface Owner {
  pid: number;
  start: string | null;
}

/** The start time of a process, or null when it does not exist or /proc cannot say. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name (field 2) is in parentheses and may hold spaces or ")": split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19]; // field 22 overall: 20th after pid and comm
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

let self: Owner | undefined;

/** This process as an owner. */
export function currentOwner(): Owner {
  self ??= { pid: process.pid, start: processStart(process.pid) };
  return self;
}

function pidAnswers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the process that owned something still runs: same pid and, where known, same start. */
export function ownerAlive(o: Owner): boolean {
  if (!Number.isInteger(o.pid) || o.pid <= 0) return false;
  if (o.pid === process.pid) return o.start === null || o.start === currentOwner().start;
  if (!pidAnswers(o.pid)) return false;
  if (o.start === null) return true;
  const now = processStart(o.pid);
  // /proc unreadable for a live pid (another pid namespace): keep it rather than remove a live owner's things.
  return now === null || now === o.start;
}

/** The name prefix of an owner's sandbox folders and cgroups: `<pid>-<start>-` (the start left out where unknown). */
export function ownerPrefix(o: Owner = currentOwner()): string {
  return o.start === null ? `${o.pid}-` : `${o.pid}-${o.start}-`;
}

/**
 * The owner a sandbox folder or cgroup name starts with: `<pid>-<start>-<id>`, or the older
 * `<pid>-<id>` (no start: pid only). Null when the name is not one of ours.
 */
export function ownerOfName(name: string): Owner | null {
  const parts = name.split("-");
  const pid = Number(parts[0]);
  if (!Number.isInteger(pid) || pid <= 0 || parts.length < 2) return null;
  const start = parts.length >= 3 && /^\d+$/.test(parts[1] ?? "") ? (parts[1] ?? null) : null;
  return { pid, start };
}
