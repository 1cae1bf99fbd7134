import type { Command } from "commander";
import { readRunFile } from "../../core/app/run-file";
import { formatProblem } from "../../core/model/problem";
import type { RunFile } from "../../core/schema/run-file";

/** `snake_case` → the attribute commander keeps the flag under (`base_url` → `baseUrl`). */
const attribute = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A file value as the flag's parser would have given it. */
function asFlagValue(key: keyof RunFile, value: RunFile[keyof RunFile]): unknown {
  if (key === "tasks") return (Array.isArray(value) ? value : [value as string]).flatMap((t) => t.split(",")).filter((t) => t !== "");
  if (key === "only_samples") return JSON.stringify(value);
  return value;
}

/**
 * `rlenv run -c FILE`: the file's options under the command line's. A flag given on the
 * command line wins; a flag left at its default takes the file's value. Problems in the file
 * (unknown keys, wrong types) go to stderr with file:line:column, then an error (exit 2).
 * Returns the environment folder: the `[dir]` argument, else the file's `env`, else ".".
 */
export function applyRunFile(file: string, dir: string | undefined, opts: Record<string, unknown>, cmd: Command): string {
  const { data, problems } = readRunFile(file);
  if (!data) {
    for (const p of problems) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
    throw new Error(`${file}: the run config file has ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  }
  for (const [key, value] of Object.entries(data) as Array<[keyof RunFile, RunFile[keyof RunFile]]>) {
    if (key === "env" || value === undefined) continue;
    const attr = attribute(key);
    if (cmd.getOptionValueSource(attr) === "cli") continue;
    opts[attr] = asFlagValue(key, value);
  }
  return dir ?? data.env ?? ".";
}
