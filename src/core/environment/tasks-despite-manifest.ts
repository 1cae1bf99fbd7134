import { existsSync } from "node:fs";
import type { Problem } from "../model/problem";
import { resolveInside } from "./safe-path";

/**
 * The task file's own problems when the manifest has problems of its own: as long as the
 * manifest names its tasks (a path inside the folder that exists), they are checked too,
 * so an author fixes both in one round instead of learning of the second after the first.
 * Where the path itself is wrong, the manifest's problems already say so.
 */
export function taskProblemsDespiteManifest(dir: string, raw: unknown, load: (tasksPath: string) => { problems: Problem[] }): Problem[] {
  const rel = raw && typeof raw === "object" ? (raw as { tasks?: unknown }).tasks : undefined;
  if (typeof rel !== "string" || rel === "") return [];
  const r = resolveInside(dir, rel);
  if (!r.ok || !existsSync(r.path)) return [];
  try {
    return load(r.path).problems;
  } catch {
    return [];
  }
}
