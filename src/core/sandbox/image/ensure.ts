import path from "node:path";
import type Docker from "dockerode";
import type { Environment } from "../../model/environment";
import { buildBaseImage, type Log } from "./build-base";
import { buildEnvironmentImage, environmentImageState } from "./build-env";
import { ensureHarborImage } from "./harbor-build";
import { imagePresent } from "./image-present";
import { listRecipes } from "./recipe";
import { imageNeed, stockRecipe } from "./stand-in";

/** An environment's image is not on this machine and was not built (`--no-build`, or it cannot be). */
export class MissingImageError extends Error {
  override name = "MissingImageError";
}

/** How a folder is named in a command to copy: relative to where the user is, when that is shorter. */
function shown(dir: string): string {
  const rel = path.relative(process.cwd(), dir) || ".";
  return rel.length < dir.length && !rel.startsWith("..") ? rel : dir;
}

/** The command that builds an environment's image, or null when rlenv cannot build it. */
export function buildCommandFor(env: Environment, image = imageNeed(env).image): string | null {
  if (env.manifest.sandbox.build) return `rlenv image build ${shown(env.dir)}`;
  const recipe = stockRecipe(image);
  return recipe ? `rlenv image build ${recipe.name}` : null;
}

export interface EnsureImageOptions {
  /** false: do not build a missing image, fail naming the command that builds it. */
  build?: boolean;
  /** Build progress, one line at a time. */
  log?: Log;
}

/**
 * Makes sure the image an environment's docker sandboxes start from is on this machine:
 * built when missing (its Dockerfile on the local base, or a stock recipe), with progress on
 * `log`; under `build: false` a MissingImageError names the command that builds it. An image
 * rlenv cannot build (neither a recipe nor the environment's Dockerfile) fails saying so.
 */
export async function ensureEnvironmentImage(
  docker: Docker,
  env: Environment,
  opts: EnsureImageOptions = {},
): Promise<{ image: string; built: boolean }> {
  if (env.harbor) return ensureHarborImage(docker, env, opts);
  const image = imageNeed(env).image;
  const built = !!env.manifest.sandbox.build;
  const state = built ? await environmentImageState(docker, env) : (await imagePresent(docker, image)) ? "current" : "missing";
  if (state === "current") return { image, built: false };
  const command = buildCommandFor(env, image);
  const name = env.manifest.name;
  if (!command) {
    throw new MissingImageError(
      `${env.manifestPath}: sandbox.image: the image ${image} is not on this machine, and rlenv cannot build it (it is no recipe of scripts/image/recipes; sandboxes cannot pull): load it with \`docker load\` or build it with \`docker build -t ${image} …\``,
    );
  }
  const why =
    state === "stale"
      ? `${name}'s sandbox image ${image} was built on a base image that has changed since`
      : built
        ? `${name}'s sandbox image ${image} (from ${env.manifest.sandbox.build}) is not built yet`
        : `the sandbox image ${image} of ${name} is not on this machine`;
  if (opts.build === false) throw new MissingImageError(`${why}; build it with: ${command}`);
  const log = opts.log ?? (() => {});
  log(`${why}: building it (${command})…`);
  if (built) await buildEnvironmentImage(docker, env, { log });
  else {
    const recipe = listRecipes().find((r) => r.tag === image);
    if (recipe) await buildBaseImage(docker, recipe, { log });
  }
  log(`built ${image}`);
  return { image, built: true };
}
