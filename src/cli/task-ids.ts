import type { Environment } from "../core/environment";

/**
 * `--tasks`'s parser: `--tasks a b` and `--tasks a,b` name the same two tasks (a comma list
 * would otherwise be one id that no task has).
 */
export function collectTaskIds(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").filter((id) => id !== "")];
}

/** The ids of `--tasks` that none of the environments has (a typo must not check nothing and pass). */
export function unknownTaskIds(tasks: string[] | undefined, envs: Iterable<Environment>): string[] {
  if (!tasks) return [];
  const known = new Set([...envs].flatMap((e) => e.tasks.map((t) => t.id)));
  return tasks.filter((t) => !known.has(t));
}

/** The line that says so, with a few ids that do exist. */
export function unknownTaskIdsMessage(command: string, unknown: string[], envs: Iterable<Environment>): string {
  const some = [...envs].flatMap((e) => e.tasks.map((t) => t.id)).slice(0, 3);
  return `rlenv ${command}: unknown task id${unknown.length === 1 ? "" : "s"} ${unknown.map((u) => `'${u}'`).join(", ")}: no environment here has ${unknown.length === 1 ? "it" : "them"}${some.length ? ` (tasks look like ${some.join(", ")})` : ""}\n`;
}
