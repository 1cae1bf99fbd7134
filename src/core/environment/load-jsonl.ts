/** A tasks file of JSON lines, one task a line: read, parsed, validated, each problem at its line and column. */
import type { FileMap } from "../schema/common";
import { Task } from "../schema/task";
import type { LoadedTask } from "../model/environment";
import { formatPath, type Problem, type Span, START_OF_FILE } from "../model/problem";
import { type LoadLimits, readSourceText } from "../util/read-source";
import {
  deepestNesting,
  JsonPositionIndex,
  JsonSyntaxError,
  LineMap,
  MAX_NESTING,
  mayHaveDuplicateKeys,
  parseJsonWithPositions,
} from "./json-positions";
import { isSafeRelativePath } from "./safe-path";
import { type SpanSource, validateValue } from "./validate-value";

const FILE_MAP_FIELDS: Array<(t: Task) => [string[], FileMap | undefined]> = [
  (t) => [["files"], t.files],
  (t) => [["visible_tests"], t.visible_tests],
  (t) => [["tests", "files"], t.tests?.files],
  (t) => [["solution", "files"], t.solution?.files],
];

/** Seed, test and solution file paths must stay inside the sandbox workdir. */
export function checkFilePaths(
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

export function loadJsonl(file: string, limits: LoadLimits): { tasks: LoadedTask[]; problems: Problem[] } {
  const tasks: LoadedTask[] = [];
  const capped = new CappedProblems(limits.maxProblemsPerFile);
  const read = readSourceText(file, limits.maxTasksBytes);
  if (!read.ok) return { tasks, problems: [{ file, ...read.span, path: "", message: read.message, severity: "error" }] };
  const lines = read.text.split("\n");
  capLines(file, lines, limits, capped);
  const problems: ProblemSink = { push: (...ps: Problem[]) => capped.pushAll(ps) };
  lines.forEach((raw, idx) => {
    const task = jsonlTask(file, raw, idx, capped, problems);
    if (task) tasks.push(task);
  });
  const out = capped.done();
  if (tasks.length === 0 && out.length === 0)
    out.push({ file, ...START_OF_FILE, path: "", message: "the tasks file has no tasks: one JSON object a line", severity: "error" });
  return { tasks, problems: out };
}

type ProblemSink = { push: (...ps: Problem[]) => void };

/** A tasks file over the line limit: a problem at the first line past it, and the lines from there dropped. */
function capLines(file: string, lines: string[], limits: LoadLimits, capped: CappedProblems): void {
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
}

/** The task a line of a tasks file holds; undefined when it is blank or has problems (pushed to `problems`). */
function jsonlTask(file: string, raw: string, idx: number, capped: CappedProblems, problems: ProblemSink): LoadedTask | undefined {
  const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (text.trim() === "") return undefined;
  const prefix = `tasks[${idx}]`;
  const parsed = jsonlValue(file, text, idx, prefix, capped, problems);
  if (!parsed) return undefined;
  const positions: SpanSource = capped.full ? lineStart(idx) : new LazyJsonPositions(text, idx);
  // Past the cap a line's problems are only counted: explaining them was most of the cost of a file of many bad lines.
  const res = capped.full ? quickValidate(parsed.value, file, idx, prefix) : validateValue(Task, parsed.value, file, positions, prefix);
  problems.push(...res.problems);
  if (!res.data) return undefined;
  const pathProblems = checkFilePaths(res.data, file, (p, k) => positions.spanOf(p, k), prefix);
  problems.push(...pathProblems);
  return pathProblems.length === 0 ? { ...res.data, source: { file, line: idx + 1, index: idx } } : undefined;
}

/** A line's JSON value; undefined when it is nested too deep, is not JSON, or gives a key twice (each a problem pushed). */
function jsonlValue(
  file: string,
  text: string,
  idx: number,
  prefix: string,
  capped: CappedProblems,
  problems: ProblemSink,
): { value: unknown } | undefined {
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
    return undefined;
  }
  // JSON.parse first: it is native and most lines are fine. Positions (our own, slower
  // parser) are worked out only for a line that has a problem to point at.
  let value: unknown;
  try {
    value = parseQuietly(text);
  } catch {
    problems.push(invalidJson(file, text, idx, prefix, capped));
    return undefined;
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
    if (duplicates.length > 0) return undefined;
  }
  return { value };
}

/** The problem of a line JSON.parse refused, at the offset our own parser stops at. */
function invalidJson(file: string, text: string, idx: number, prefix: string, capped: CappedProblems): Problem {
  const lm = new LineMap(text, idx);
  // Past the cap a problem is only counted: its column is not worth a second parse.
  if (capped.full) return { file, ...lm.span(0, 0), path: prefix, message: "invalid JSON", severity: "error" };
  try {
    parseJsonWithPositions(text);
    return { file, ...lm.span(0, 0), path: prefix, message: "invalid JSON", severity: "error" };
  } catch (e) {
    const off = e instanceof JsonSyntaxError ? e.offset : 0;
    return { file, ...lm.span(off, off), path: prefix, message: `invalid JSON: ${(e as Error).message}`, severity: "error" };
  }
}
