import { sandboxFiles } from "../model/file-content";
import type { FileMap } from "../schema/common";
import { seedMap } from "../sandbox/diff";
import type { Sandbox } from "../model/sandbox";
import { STDLIB_MODULES, TEST_FRAMEWORK_MODULES } from "./python-names";

/** Why a file of the agent's workdir does not go into the judging sandbox as the policy left it. */
export type DropReason = "bytecode cache" | "start-up hook" | "site folder" | "shadows a module" | "test hook" | "beside the hidden tests";

export interface DroppedFile {
  path: string;
  why: DropReason;
  /** The task's own version went in instead (a seed file the policy changed or deleted). */
  restored: boolean;
}

/** What the policy submitted: the workdir's files as data, and what was left out of them. */
export interface Submission {
  /** The judging sandbox's workdir: path → bytes. */
  files: Record<string, Buffer>;
  /** Files the policy added or changed (kept or not): what the hack-signal scan reads. */
  changed: Map<string, Buffer>;
  dropped: DroppedFile[];
}

/** Files Python runs on its own at start-up or at import: never the policy's in a judging sandbox. */
const STARTUP_HOOKS = new Set(["sitecustomize.py", "usercustomize.py"]);
/** Files that configure or hook the test framework: the task's own version, or none. */
const TEST_HOOKS = new Set(["conftest.py", "pytest.ini"]);

/**
 * Why `rel` (a file the policy added or changed) is not judged as it stands, or null when it is.
 * `hiddenDirs` are the folders (other than the workdir itself) that hold hidden test files.
 */
export function dropReason(rel: string, added: boolean, hiddenDirs: ReadonlySet<string>): DropReason | null {
  const parts = rel.split("/");
  const name = parts[parts.length - 1] ?? rel;
  // Bytecode stands in for the source it claims to be compiled from, and the diff a person reads shows only the source.
  if (parts.includes("__pycache__") || /\.py[co]$/.test(name)) return "bytecode cache";
  if (name.endsWith(".pth") || STARTUP_HOOKS.has(name)) return "start-up hook";
  if (parts[0] === ".local" || parts.some((p) => p === "site-packages" || p === "dist-packages")) return "site folder";
  if (TEST_HOOKS.has(name)) return "test hook";
  const dir = parts.slice(0, -1).join("/");
  if (dir !== "" && hiddenDirs.has(dir)) return "beside the hidden tests";
  if (added) {
    // A top-level module (file or package) named like the standard library or the test framework.
    const top = parts.length === 1 ? name.replace(/\.(py|so)$/, "") : parts[0];
    const isModule = parts.length > 1 || /\.(py|so)$/.test(name);
    if (isModule && top && (STDLIB_MODULES.has(top) || TEST_FRAMEWORK_MODULES.has(top))) return "shadows a module";
  }
  return null;
}

/** The folders below the workdir that hold a hidden file. */
export function hiddenFolders(hidden: FileMap | undefined): Set<string> {
  const out = new Set<string>();
  for (const p of Object.keys(hidden ?? {})) {
    const dir = p.replace(/^\.\//, "").split("/").slice(0, -1).join("/");
    if (dir) out.add(dir);
  }
  return out;
}

/**
 * The submission in the agent's sandbox: the task's seed with the policy's changes (its diff)
 * applied, less what a judge must not run as the policy left it (see dropReason); a seed file
 * among those is judged in the task's own version. Binary files are read in one call.
 */
export async function readSubmission(
  sb: Pick<Sandbox, "diff" | "readFiles">,
  seed: FileMap,
  hidden: FileMap | undefined,
): Promise<Submission> {
  const seedFiles = seedMap(sandboxFiles(seed));
  const hiddenDirs = hiddenFolders(hidden);
  const files = new Map(seedFiles);
  const changed = new Map<string, Buffer>();
  const dropped: DroppedFile[] = [];
  const toRead: string[] = [];
  for (const d of await sb.diff()) {
    const why = d.status === "deleted" ? null : dropReason(d.path, d.status === "added", hiddenDirs);
    const seedVersion = seedFiles.get(d.path);
    if (why) {
      dropped.push({ path: d.path, why, restored: seedVersion !== undefined });
      // The scan still reads what was dropped (a .pth's code is its own signal), bytecode aside.
      if (why !== "bytecode cache" && d.after !== null) changed.set(d.path, Buffer.from(d.after, "utf8"));
      continue;
    }
    if (d.status === "deleted") {
      const deletedHook = dropReason(d.path, false, hiddenDirs);
      if (deletedHook) dropped.push({ path: d.path, why: deletedHook, restored: true });
      else files.delete(d.path);
      continue;
    }
    if (d.after === null) toRead.push(d.path);
    else {
      const b = Buffer.from(d.after, "utf8");
      files.set(d.path, b);
      changed.set(d.path, b);
    }
  }
  if (toRead.length > 0) {
    const read = await sb.readFiles(toRead);
    for (const p of toRead) {
      const b = read[p];
      if (!b) {
        files.delete(p); // gone since the listing: what is there now is what is judged
        continue;
      }
      files.set(p, b);
      changed.set(p, b);
    }
  }
  return { files: Object.fromEntries(files), changed, dropped };
}
