import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import path from "node:path";
import type { FileContent } from "../schema/common";
import { Task } from "../schema/task";
import { contentOfBytes } from "../model/file-content";
import { checkFilePaths, loadJsonl } from "./load-jsonl";
import { PositionIndex } from "./positions";
import { type Problem, START_OF_FILE } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, type LoadLimits, readSourceText } from "../util/read-source";
import { linkLeadsOut, resolveInside } from "./safe-path";
import { validateValue } from "./validate-value";
import type { LoadedTask } from "../model/environment";

/** Whether `abs` is a link that leads out of the (resolved) environment folder. */
function leadsOut(abs: string, realEnv: string): boolean {
  return lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() === true && linkLeadsOut(abs, realEnv) !== null;
}

/** What a file system entry that is neither a file nor a folder is, in words. */
function specialKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "a special file";
}

/**
 * Read every file under a folder into a path → content map (text, or base64 for bytes that
 * are not UTF-8 text, so a database or an image arrives byte for byte), never through a link that leads
 * out of the environment (the loader refuses each of those where it is: see
 * findOutsideLinks). A link that stays inside is read as what it points to: a file's bytes,
 * a folder's files; a link to this folder or one above it is skipped (it would hold itself),
 * and each real folder is read once, so no loop of links goes on without end. What is not
 * a file or a folder (a FIFO, a socket, a device, a loop of links) or cannot be read goes
 * to `refuse`: the sandbox would otherwise get the task without it and nobody be told.
 */
function readTree(dir: string, realEnv: string, refuse: (abs: string, why: string) => void): Record<string, FileContent> {
  const out: Record<string, FileContent> = {};
  const seen = new Set<string>();
  let top = "";
  const walk = (abs: string, rel: string) => {
    const real = realpathSync(abs);
    if (seen.has(real) || (rel !== "" && (top === real || top.startsWith(real + path.sep)))) return;
    seen.add(real);
    if (rel === "") top = real;
    for (const name of readdirSync(abs).sort()) {
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      try {
        if (leadsOut(a, realEnv)) continue;
        const st = statSync(a, { throwIfNoEntry: false }); // follows a link that stays inside; undefined when dangling
        if (st?.isDirectory()) walk(a, r);
        // Any x bit on disk keeps the file executable in the sandbox (a seed script run as ./run.sh).
        else if (st?.isFile()) out[r] = contentOfBytes(readFileSync(a), (st.mode & 0o111) !== 0);
        else if (st) refuse(a, `is ${specialKind(st)}, not a file or a folder: a task's folders hold files and folders only`);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        refuse(a, err.code === "ELOOP" ? "is a loop of symbolic links" : `cannot be read: ${err.code ?? err.message}`);
      }
    }
  };
  if (existsSync(dir) && !leadsOut(dir, realEnv) && statSync(dir).isDirectory()) walk(dir, "");
  return out;
}

/**
 * A folder per task: `<id>/task.yaml` (or task.json) with the fields of a task, plus
 * optional `files/` (seed), `visible_tests/`, `tests/` (hidden) and `solution/` folders
 * whose files are merged into the task.
 */
function loadTaskFolders(root: string, envDir: string, limits: LoadLimits): { tasks: LoadedTask[]; problems: Problem[] } {
  const tasks: LoadedTask[] = [];
  const problems: Problem[] = [];
  const realEnv = realpathSync(envDir);
  // A task folder that is a link out is refused where it is (findOutsideLinks), not read here.
  const names = readdirSync(root)
    .filter((n) => !leadsOut(path.join(root, n), realEnv) && statSync(path.join(root, n), { throwIfNoEntry: false })?.isDirectory())
    .sort();
  names.forEach((name, idx) => {
    const dir = path.join(root, name);
    const prefix = `tasks[${idx}]`;
    const inside = resolveInside(envDir, path.relative(envDir, dir));
    if (!inside.ok) {
      problems.push({ file: dir, ...START_OF_FILE, path: prefix, message: inside.message, severity: "error" });
      return;
    }
    const yamlFile = ["task.yaml", "task.yml", "task.json"]
      .map((f) => path.join(dir, f))
      .find((f) => existsSync(f) && !leadsOut(f, realEnv));
    if (!yamlFile) {
      problems.push({ file: dir, ...START_OF_FILE, path: prefix, message: `task folder '${name}' has no task.yaml`, severity: "error" });
      return;
    }
    const read = readSourceText(yamlFile, limits.maxManifestBytes);
    if (!read.ok) {
      problems.push({ file: yamlFile, ...read.span, path: prefix, message: read.message, severity: "error" });
      return;
    }
    const positions = new PositionIndex(read.text);
    const yerr = positions.errors()[0];
    if (yerr) {
      problems.push({ file: yamlFile, ...yerr.span, path: prefix, message: yerr.message, severity: "error" });
      return;
    }
    const js = positions.value();
    if (!js.ok) {
      problems.push({ file: yamlFile, ...js.span, path: prefix, message: js.message, severity: "error" });
      return;
    }
    const raw = (js.value ?? {}) as Record<string, unknown>;
    const unreadable: Problem[] = [];
    const value = typeof raw === "object" && raw !== null ? { id: name, ...raw } : raw;
    if (value && typeof value === "object") {
      const v = value as Record<string, unknown>;
      const merge = (field: string, sub: string, into?: string) => {
        const tree = readTree(path.join(dir, sub), realEnv, (abs, why) =>
          unreadable.push({ file: abs, ...START_OF_FILE, path: prefix, message: `'${path.relative(dir, abs)}' ${why}`, severity: "error" }),
        );
        if (Object.keys(tree).length === 0) return;
        if (into) {
          const parent = (v[field] ?? {}) as Record<string, unknown>;
          v[field] = { ...parent, [into]: { ...tree, ...((parent[into] as object) ?? {}) } };
        } else v[field] = { ...tree, ...((v[field] as object) ?? {}) };
      };
      merge("files", "files");
      merge("visible_tests", "visible_tests");
      merge("tests", "tests", "files");
      merge("solution", "solution", "files");
    }
    if (unreadable.length > 0) {
      problems.push(...unreadable);
      return;
    }
    const res = validateValue(Task, value, yamlFile, positions, prefix);
    problems.push(...res.problems);
    if (!res.data) return;
    const pathProblems = checkFilePaths(res.data, yamlFile, (p, k) => positions.spanOf(p, k), prefix);
    problems.push(...pathProblems);
    if (pathProblems.length === 0) tasks.push({ ...res.data, source: { file: yamlFile, line: 1, index: idx } });
  });
  return { tasks, problems };
}

export function loadTasks(
  tasksPath: string,
  envDir: string,
  limits: LoadLimits = DEFAULT_LOAD_LIMITS,
): { tasks: LoadedTask[]; problems: Problem[] } {
  const st = statSync(tasksPath);
  const result = st.isDirectory() ? loadTaskFolders(tasksPath, envDir, limits) : loadJsonl(tasksPath, limits);
  // Task ids are how runs, the editor and the CLI name tasks: they must be unique.
  const seen = new Map<string, LoadedTask>();
  const unique: LoadedTask[] = [];
  for (const t of result.tasks) {
    const first = seen.get(t.id);
    if (first) {
      result.problems.push({
        file: t.source.file,
        line: t.source.line,
        column: 1,
        endLine: t.source.line,
        endColumn: 1,
        path: `tasks[${t.source.index}].id`,
        // Named by file and line: in the folder form every task.yaml's line is 1, so a line alone says nothing.
        message: `duplicate task id '${t.id}' (first defined at ${path.relative(envDir, first.source.file) || path.basename(first.source.file)}:${first.source.line})`,
        severity: "error",
      });
      continue;
    }
    seen.set(t.id, t);
    unique.push(t);
  }
  result.problems.sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
  return { tasks: unique, problems: result.problems };
}
