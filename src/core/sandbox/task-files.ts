import { executablePaths, sandboxFiles } from "../model/file-content";
import type { FileMap } from "../schema/common";
import type { Task } from "../schema/task";
import type { Sandbox } from "../model/sandbox";

/** Mode of a task file marked executable (what `chmod +x` gives a 644 file; git keeps no other). */
export const EXECUTABLE_MODE = 0o755;

/**
 * A task's file map into a sandbox (seed, stage, hidden or solution files): one write with the
 * default mode, and the executable files in a second one with theirs. Nearly every map has none.
 */
export async function writeTaskFiles(sb: Pick<Sandbox, "writeFiles">, map: FileMap | undefined): Promise<void> {
  const all = sandboxFiles(map);
  const executable = new Set(executablePaths(map));
  const plain: Record<string, string | Buffer> = {};
  const marked: Record<string, string | Buffer> = {};
  for (const [p, c] of Object.entries(all)) (executable.has(p) ? marked : plain)[p] = c;
  if (Object.keys(plain).length > 0) await sb.writeFiles(plain);
  if (Object.keys(marked).length > 0) await sb.writeFiles(marked, { mode: EXECUTABLE_MODE });
}

/**
 * After a map was written by a path that sets no mode (a sandbox's reset to its seed, a write
 * from inside the sandbox that resolves links there): its executable files are written again,
 * the same bytes, with their mode. A no-op for a map without executable files.
 */
export async function markExecutable(sb: Pick<Sandbox, "writeFiles">, map: FileMap | undefined): Promise<void> {
  const paths = executablePaths(map);
  if (paths.length === 0) return;
  const all = sandboxFiles(map);
  const marked: Record<string, string | Buffer> = {};
  for (const p of paths) marked[p] = all[p] ?? "";
  await sb.writeFiles(marked, { mode: EXECUTABLE_MODE });
}

/** A task's seed: its files, then its visible tests (a visible test wins over a file of the same path). */
export function taskSeed(task: Pick<Task, "files" | "visible_tests">): FileMap {
  return { ...(task.files ?? {}), ...(task.visible_tests ?? {}) };
}

/** A sandbox's workdir reset to exactly this seed, executable files with their mode. */
export async function resetToSeed(sb: Pick<Sandbox, "reset" | "writeFiles">, seed: FileMap): Promise<void> {
  await sb.reset(sandboxFiles(seed));
  await markExecutable(sb, seed);
}
