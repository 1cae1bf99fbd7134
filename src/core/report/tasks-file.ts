import { readFileSync, writeFileSync } from "node:fs";

/** A tasks file: one task id a line; blank lines and lines starting with `#` are skipped. */
export interface TasksFileEntry {
  id: string;
  line: number;
}

export function readTasksFile(file: string): TasksFileEntry[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--tasks-file ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  const out: TasksFileEntry[] = [];
  text.split("\n").forEach((raw, i) => {
    const id = raw.trim();
    if (id !== "" && !id.startsWith("#")) out.push({ id, line: i + 1 });
  });
  return out;
}

/**
 * The ids of a tasks file, checked against the environment's tasks: an unknown id or a
 * repeated one is named with its file and line (all of them, not only the first).
 */
export function checkTasksFile(file: string, entries: readonly TasksFileEntry[], known: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const e of entries) {
    if (!known.has(e.id)) problems.push(`${file}:${e.line}: unknown task id '${e.id}'`);
    else if (seen.has(e.id)) problems.push(`${file}:${e.line}: task id '${e.id}' repeats line ${seen.get(e.id)}`);
    else seen.set(e.id, e.line);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
  if (entries.length === 0) throw new Error(`${file}: no task ids (one a line; # starts a comment)`);
  return entries.map((e) => e.id);
}

/** What `--emit-tasks` writes: a comment naming where the ids came from, then the ids. */
export function writeTasksFile(file: string, ids: readonly string[], origin: string): void {
  writeFileSync(file, `# ${origin}\n${ids.map((id) => `${id}\n`).join("")}`);
}
