import { readFileSync } from "node:fs";
import { descendants } from "../../src/core/sandbox/host-procs";

/** A process's command line with its NULs as spaces ("" once it is gone). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/**
 * A process sandbox's processes below `root`: every live one whose command line names `folder`
 * (the sandbox's own folder), and everything below those. Read from /proc by the engine's own
 * walker (sandbox/host-procs.ts), so a test sees what the backstops see: zombies are ended.
 */
export function sandboxProcesses(root: number, folder: string): number[] {
  const mine = new Set<number>();
  for (const pid of descendants(root)) {
    if (mine.has(pid) || !cmdline(pid).includes(folder)) continue;
    mine.add(pid);
    for (const below of descendants(pid)) mine.add(below);
  }
  return [...mine];
}

export { descendants };
