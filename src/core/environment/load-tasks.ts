import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import path from "node:path";
import type { FileContent, FileMap } from "../schema/common";
import { Task } from "../schema/task";
import { contentOfBytes } from "../model/file-content";
import {
  deepestNesting,
  JsonPositionIndex,
  JsonSyntaxError,
  LineMap,
  MAX_NESTING,
  mayHaveDuplicateKeys,
  parseJsonWithPositions,
} from "./json-positions";
import { PositionIndex } from "./positions";
import { formatPath, type Problem, type Span, START_OF_FILE } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, type LoadLimits, readSourceText } from "../util/read-source";
import { isSafeRelativePath, linkLeadsOut, resolveInside } from "./safe-path";
import { type SpanSource, validateValue } from "./validate-value";
import type { LoadedTask } from "../model/environment";

const FILE_MAP_FIELDS: Array<(t: Task) => [string[], FileMap | undefined]> = [
  (t) => [["files"], t.files],
  (t) => [["visible_tests"], t.visible_tests],
  (t) => [["tests", "files"], t.tests?.files],
  (t) => [["solution", "files"], t.solution?.files],
];

/** Seed, test and solution file paths must stay inside the sandbox workdir. */
function checkFilePaths(
  task: Task,
  file: string,
  spanOf: (p: PropertyKey[], atKey: boolean) => ReturnType<LineMap["span"]>,
  prefix: string,
): Problem[] {
  const out: Problem[] = [];
  for (const get of FILE_MAP_FIELDS) {
    const [base, files] = get(task);
    for (const name of Object.keys(files ?? {})) {
      if (isSafeRelativePath(name)) continue;
      const p = [...base, name];
      out.push({
        file,
        ...spanOf(p, true),
        path: formatPath(p, prefix),
        message: `file path '${name}' must be relative and stay inside the workdir`,
        severity: "error",
      });
    }
  }
  return out;
}

/** A line's value positions, parsed on the first question (only a line with a problem asks). */
class LazyJsonPositions implements SpanSource {
  private index: JsonPositionIndex | undefined;
  constructor(
    private readonly text: string,
    private readonly lineIndex: number,
  ) {}
  spanOf(p: ReadonlyArray<PropertyKey>, atKey?: boolean): Span {
    try {
      this.index ??= new JsonPositionIndex(parseJsonWithPositions(this.text).ranges, new LineMap(this.text, this.lineIndex));
    } catch {
      // JSON.parse took the line; should ours not, the line's start is still the right line.
      return { line: this.lineIndex + 1, column: 1, endLine: this.lineIndex + 1, endColumn: 1 };
    }
    return this.index.spanOf(p, atKey);
  }
}

/**
 * Problems of one file, at most `max` kept: a file of 200,000 broken lines gives the first
 * ones and one more problem saying how many were left out, not 200,000 (nor a slow sort).
 */
class CappedProblems {
  readonly list: Problem[] = [];
  /** Lines with a problem past the cap (a line's several problems count once). */
  private dropped = 0;
  private lastDroppedLine = -1;
  private firstDropped: Problem | undefined;
  constructor(private readonly max: number) {}
  push(p: Problem): void {
    if (this.list.length < this.max) this.list.push(p);
    else if (p.line !== this.lastDroppedLine) {
      this.lastDroppedLine = p.line;
      if (this.dropped++ === 0) this.firstDropped = p;
    }
  }
  get full(): boolean {
    return this.list.length >= this.max;
  }
  pushAll(ps: readonly Problem[]): void {
    for (const p of ps) this.push(p);
  }
  done(): Problem[] {
    const f = this.firstDropped;
    if (f)
      this.list.push({
        ...f,
        path: "",
        message: `problems on ${this.dropped} more line${this.dropped === 1 ? "" : "s"} of this file from here on, not listed (the first ${this.max} problems are)`,
      });
    return this.list;
  }
}

/**
 * JSON.parse without the stack trace of its SyntaxError: capturing one per broken line was
 * most of the cost of a file of many broken lines.
 */
function parseQuietly(text: string): unknown {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.parse(text);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function quickValidate(value: unknown, file: string, idx: number, prefix: string): { data?: Task; problems: Problem[] } {
  const r = Task.safeParse(value);
  if (r.success) return { data: r.data, problems: [] };
  return {
    problems: [
      {
        file,
        line: idx + 1,
        column: 1,
        endLine: idx + 1,
        endColumn: 1,
        path: prefix,
        message: "does not match the task schema",
        severity: "error",
      },
    ],
  };
}

const lineStart = (idx: number): SpanSource => ({ spanOf: () => ({ line: idx + 1, column: 1, endLine: idx + 1, endColumn: 1 }) });

function loadJsonl(file: string, limits: LoadLimits): { tasks: LoadedTask[]; problems: Problem[] } {
  const tasks: LoadedTask[] = [];
  const capped = new CappedProblems(limits.maxProblemsPerFile);
  const read = readSourceText(file, limits.maxTasksBytes);
  if (!read.ok) return { tasks, problems: [{ file, ...read.span, path: "", message: read.message, severity: "error" }] };
  const lines = read.text.split("\n");
  if (lines.length > limits.maxTaskLines && !(lines.length === limits.maxTaskLines + 1 && lines[limits.maxTaskLines] === "")) {
    const line = limits.maxTaskLines + 1;
    capped.push({
      file,
      line,
      column: 1,
      endLine: line,
      endColumn: 1,
      path: "",
      message: `more than ${limits.maxTaskLines} lines: the limit of a tasks file (split the task set, or use a folder of tasks); the lines from here on are not read`,
      severity: "error",
    });
    lines.length = limits.maxTaskLines;
  }
  const problems = { push: (...ps: Problem[]) => capped.pushAll(ps) };
  lines.forEach((raw, idx) => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (text.trim() === "") return;
    const lineNo = idx + 1;
    const prefix = `tasks[${idx}]`;
    // Nesting thousands deep (valid JSON or not) is refused before any parser recurses into it.
    const deep = text.length > MAX_NESTING ? deepestNesting(text, MAX_NESTING, "json") : -1;
    if (deep >= 0) {
      const lm = new LineMap(text, idx);
      problems.push({
        file,
        ...lm.span(deep, deep + 1),
        path: prefix,
        message: `lists and objects nested deeper than ${MAX_NESTING} levels`,
        severity: "error",
      });
      return;
    }
    // JSON.parse first: it is native and most lines are fine. Positions (our own, slower
    // parser) are worked out only for a line that has a problem to point at.
    let value: unknown;
    try {
      value = parseQuietly(text);
    } catch {
      const lm = new LineMap(text, idx);
      // Past the cap a problem is only counted: its column is not worth a second parse.
      if (capped.full) {
        problems.push({ file, ...lm.span(0, 0), path: prefix, message: "invalid JSON", severity: "error" });
        return;
      }
      try {
        parseJsonWithPositions(text);
        problems.push({ file, ...lm.span(0, 0), path: prefix, message: "invalid JSON", severity: "error" });
      } catch (e) {
        const off = e instanceof JsonSyntaxError ? e.offset : 0;
        problems.push({ file, ...lm.span(off, off), path: prefix, message: `invalid JSON: ${(e as Error).message}`, severity: "error" });
      }
      return;
    }
    if (mayHaveDuplicateKeys(text, value)) {
      const lm = new LineMap(text, idx);
      const { duplicates } = parseJsonWithPositions(text);
      for (const d of duplicates)
        problems.push({
          file,
          ...lm.span(d.keyStart, d.keyEnd),
          path: formatPath(d.path, prefix),
          message: `field '${String(d.path.at(-1))}' is given twice in this object (first at column ${lm.pos(d.firstKeyStart).column}); JSON keeps only the last, so remove one`,
          severity: "error",
        });
      if (duplicates.length > 0) return;
    }
    const positions: SpanSource = capped.full ? lineStart(idx) : new LazyJsonPositions(text, idx);
    // Past the cap a line's problems are only counted: explaining them was most of the cost of a file of many bad lines.
    const res = capped.full ? quickValidate(value, file, idx, prefix) : validateValue(Task, value, file, positions, prefix);
    problems.push(...res.problems);
    if (!res.data) return;
    const pathProblems = checkFilePaths(res.data, file, (p, k) => positions.spanOf(p, k), prefix);
    problems.push(...pathProblems);
    if (pathProblems.length === 0) tasks.push({ ...res.data, source: { file, line: lineNo, index: idx } });
  });
  const out = capped.done();
  if (tasks.length === 0 && out.length === 0)
    out.push({ file, ...START_OF_FILE, path: "", message: "the tasks file has no tasks: one JSON object a line", severity: "error" });
  return { tasks, problems: out };
}

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
