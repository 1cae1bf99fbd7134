import type { Environment } from "../core/model/environment";

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

const GLOB = /[*?[]/;

/** A task-id glob as a regex: `*` any run of characters, `?` one, `[…]` a class; the rest literal. */
function globRegex(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        re += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * The tasks a run takes: `--tasks` entries with `*`, `?` or `[…]` are globs over the environment's
 * task ids (matched in the environment's order, each id once), the others ids as given; then
 * `--limit N` keeps the first N (of the selection, else of the environment). Undefined: every
 * task. A glob that matches nothing is an error, as an unknown id is: a typo must not run nothing.
 */
export function selectTaskIds(o: { tasks?: string[]; fileTasks?: string[]; limit?: number }, ids: readonly string[]): string[] | undefined {
  let selected = o.fileTasks;
  if (o.tasks) {
    const out = new Set<string>();
    for (const t of o.tasks) {
      if (!GLOB.test(t)) {
        out.add(t);
        continue;
      }
      const re = globRegex(t);
      const hits = ids.filter((id) => re.test(id));
      if (hits.length === 0)
        throw new Error(`--tasks ${t}: no task id matches it${ids.length ? ` (tasks look like ${ids.slice(0, 3).join(", ")})` : ""}`);
      for (const h of hits) out.add(h);
    }
    selected = [...out];
  }
  if (o.limit === undefined) return selected;
  return (selected ?? [...ids]).slice(0, o.limit);
}
