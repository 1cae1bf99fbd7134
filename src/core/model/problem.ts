/** A problem found in an environment, at an exact place in a file. Lines and columns are 1-based. */
export interface Problem {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** The field path, such as `tasks[13].solution.files`. */
  path: string;
  message: string;
  severity: "error" | "warning";
  /** A mechanical fix an editor can offer. */
  fix?: { kind: "rename-field"; from: string; to: string } | { kind: "insert-field"; field: string; value: unknown };
}

export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export const START_OF_FILE: Span = { line: 1, column: 1, endLine: 1, endColumn: 1 };

/** `file:line:col: message` as compilers print it, the form editors and CI parse. */
export function formatProblem(p: Problem, relativeTo?: string): string {
  const file = relativeTo && p.file.startsWith(relativeTo + "/") ? p.file.slice(relativeTo.length + 1) : p.file;
  const where = p.path ? `${p.path}: ` : "";
  return `${file}:${p.line}:${p.column}: ${p.severity}: ${where}${p.message}`;
}

/** Dotted field path with array indices in brackets: `reward[0].type`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ""): string {
  let out = prefix;
  for (const seg of path) {
    const name = String(seg);
    if (typeof seg === "number") out += `[${seg}]`;
    else if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) out += `[${JSON.stringify(name)}]`;
    else out += out ? `.${name}` : name;
  }
  return out;
}
