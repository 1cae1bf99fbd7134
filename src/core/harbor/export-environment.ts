import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Environment, LoadedTask } from "../model/environment";
import { executablePaths, sandboxFiles } from "../model/file-content";
import { buildContext } from "../sandbox/image/context";
import { stockRecipe } from "../sandbox/image/stand-in";
import { taskSeed } from "../sandbox/task-files";
import type { TaskFolder } from "./export-folder";
import type { ExportDocument } from "./export-grader";

/** A Dockerfile's FROM of a stock rlenv image made buildable anywhere: Debian from a registry plus the recipe's packages. */
function portableFrom(image: string): string[] {
  const recipe = stockRecipe(image);
  if (!recipe) return [`FROM ${image}`];
  return [
    `FROM debian:${recipe.tag.split(":")[1] ?? "bookworm"}-slim`,
    `RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${recipe.packages.join(" ")} && rm -rf /var/lib/apt/lists/*`,
  ];
}
/** The files baked into the workdir: the task's seed files and the documents its prompt names; which of them are executable. */
function seedOf(
  env: Environment,
  task: LoadedTask,
  named: readonly ExportDocument[],
): { seed: Record<string, string | Buffer>; seedExecutable: Set<string> } {
  const seedFiles = taskSeed(task);
  const seed: Record<string, string | Buffer> = sandboxFiles(seedFiles);
  // Docker's COPY keeps the build context's modes: an executable seed stays one in the image.
  const seedExecutable = new Set(executablePaths(seedFiles));
  if (env.paths.documents)
    for (const d of named) {
      const from = path.join(env.paths.documents, d.name);
      if (existsSync(from)) seed[`documents/${d.name}`] = readFileSync(from);
    }
  return { seed, seedExecutable };
}

/**
 * The Dockerfile's lines before the workdir and seed are added: the environment's own (its build
 * context's other files written beside it, each stock FROM made portable), else the stock image's;
 * `original` is the own Dockerfile's text (null: none).
 */
function baseDockerfile(out: TaskFolder, env: Environment): { original: string | null; dockerfile: string[] } {
  const m = env.manifest;
  if (m.sandbox.build && env.paths.build) {
    const ctx = buildContext(env);
    for (const f of ctx.files)
      if (path.join(ctx.dir, f) !== ctx.dockerfile) out.write(`environment/${f}`, readFileSync(path.join(ctx.dir, f)));
    const original = readFileSync(ctx.dockerfile, "utf8");
    const dockerfile = original
      .replace(/\n$/, "")
      .split("\n")
      .flatMap((l) => {
        const from = /^\s*FROM\s+(\S+)\s*$/i.exec(l);
        return from?.[1] && stockRecipe(from[1]) ? portableFrom(from[1]) : [l];
      });
    return { original, dockerfile };
  }
  return { original: null, dockerfile: portableFrom(m.sandbox.image ?? "rlenv/python:bookworm") };
}

/** Writes an exported task's environment/ folder: its Dockerfile and what the Dockerfile copies. */
export function writeEnvironmentFolder(
  out: TaskFolder,
  env: Environment,
  task: LoadedTask,
  named: readonly ExportDocument[],
  importedToml: boolean,
): void {
  const m = env.manifest;
  // environment/: the build context, or a Dockerfile for the stock image; seed files baked in.
  const { seed, seedExecutable } = seedOf(env, task, named);
  const { original, dockerfile } = baseDockerfile(out, env);
  const before = dockerfile.join("\n");
  if (!importedToml) dockerfile.push(`WORKDIR ${m.sandbox.workdir}`);
  if (Object.keys(seed).length > 0) {
    for (const [p, c] of Object.entries(seed)) out.write(`environment/rlenv-seed/${p}`, c, seedExecutable.has(p));
    dockerfile.push(`COPY rlenv-seed/ ${m.sandbox.workdir}/`);
  }
  // A Dockerfile nothing had to change (an imported Harbor task's) is written byte for byte.
  const unchanged = original !== null && dockerfile.join("\n") === before && before === original.replace(/\n$/, "");
  out.write("environment/Dockerfile", unchanged && original !== null ? original : `${dockerfile.join("\n")}\n`);
}
