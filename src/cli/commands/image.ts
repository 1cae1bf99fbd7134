import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import Docker from "dockerode";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { expandHarborFolders } from "../../core/harbor/load-harbor";
import { buildBaseImage } from "../../core/sandbox/image/build-base";
import { buildEnvironmentImage } from "../../core/sandbox/image/build-env";
import { ensureHarborImage } from "../../core/sandbox/image/harbor-build";
import { listRecipes } from "../../core/sandbox/image/recipe";

/** `rlenv image build [names...]`: base images from recipes, or an environment's own Dockerfile. */
export function registerImage(program: Command): void {
  const image = program
    .command("image")
    .description("Sandbox images: Debian base images from recipes, environment images from sandbox/Dockerfile");
  image
    .command("build")
    .description(
      "Build base images (all recipes by default) or the image of an environment folder with sandbox.build; cached by content hash",
    )
    .argument("[names...]", "recipe names (python), image tags (rlenv/python:bookworm) or environment folders")
    .option("--force", "rebuild even when the image is up to date")
    .action(async (names: string[], opts: { force?: boolean }) => {
      const docker = new Docker();
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const recipes = listRecipes();
      // A folder of Harbor tasks builds each task's image.
      const targets = names.length > 0 ? expandHarborFolders(names) : recipes.map((r) => r.name);
      for (const name of targets) {
        const recipe = recipes.find((r) => r.name === name || r.tag === name);
        if (recipe) {
          const r = await buildBaseImage(docker, recipe, { force: !!opts.force, log });
          process.stdout.write(`${r.tag}${r.built ? " built" : " up to date"}\n`);
          continue;
        }
        if (existsSync(name) && statSync(name).isDirectory()) {
          const { env, problems } = loadEnvironment(name);
          if (!env) {
            for (const p of problems) log(formatProblem(p, process.cwd()));
            throw new Error(`${name}: the environment does not load`);
          }
          const r = env.harbor
            ? await ensureHarborImage(docker, env, { force: !!opts.force, log }).then((x) => ({ tag: x.image, built: x.built }))
            : await buildEnvironmentImage(docker, env, { force: !!opts.force, log });
          process.stdout.write(`${r.tag}${r.built ? " built" : " up to date"}\n`);
          continue;
        }
        throw new Error(
          `"${name}" is neither a recipe (${recipes.map((r) => r.name).join(", ")}), an image tag of one, nor an environment folder`,
        );
      }
    });
}
