import { isExecutable, textFiles } from "../model/file-content";
import type { FileMap } from "../schema/common";

/**
 * A file map as text, or null when any of its files is binary or executable: the screen
 * (rlenv_screen.py) writes text files with the default mode, so it would drop the one and
 * lose the other's executable bits; such a task's candidates are played as rollouts.
 */
export function allTextFiles(map: FileMap | undefined): Record<string, string> | null {
  const out = textFiles(map);
  const all = Object.entries(map ?? {});
  return Object.keys(out).length === all.length && !all.some(([, c]) => isExecutable(c)) ? out : null;
}
