import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { Environment } from "../../model/environment";
import { builtImageTag, DEFAULT_IMAGE } from "../request";
import { type ImageRecipe, listRecipes } from "./recipe";

/**
 * The programs a shipped recipe's packages put on PATH: what the process backend, which runs
 * commands with the host's own programs, needs from the host to stand in for that image.
 * Packages with no entry (libraries, python modules) are not checked.
 */
const PROGRAMS: Record<string, string> = {
  python3: "python3",
  "python3-pytest": "pytest",
  git: "git",
  patch: "patch",
  procps: "ps",
  blender: "blender",
};

/** What an environment's sandbox needs from a backend. */
export interface ImageNeed {
  /** The docker image the environment runs in. */
  image: string;
  /** Why only Docker can give this environment its sandbox (null: the process backend can stand in). */
  dockerOnly: string | null;
  /** Programs of the image this host lacks, so a process sandbox would not have them either. */
  missingOnHost: string[];
}

function onPath(program: string): boolean {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

/**
 * The stock images, for where the recipe files are not shipped alongside (the editor's
 * bundle carries no scripts/): a unit test keeps this equal to scripts/image/recipes.
 */
export const STOCK_IMAGES: ReadonlyArray<Pick<ImageRecipe, "name" | "tag" | "packages">> = [
  { name: "blender", tag: "rlenv/blender:bookworm", packages: ["blender", "python3-numpy", "procps"] },
  { name: "python-trixie", tag: "rlenv/python:trixie", packages: ["python3", "python3-pytest", "git", "patch", "procps"] },
  { name: "python", tag: "rlenv/python:bookworm", packages: ["python3", "python3-pytest", "git", "patch", "procps"] },
];

/** The stock recipe an image is built from, if it is one. */
export function stockRecipe(image: string): Pick<ImageRecipe, "name" | "tag" | "packages"> | undefined {
  let recipes: ReadonlyArray<Pick<ImageRecipe, "name" | "tag" | "packages">>;
  try {
    recipes = listRecipes();
  } catch {
    recipes = STOCK_IMAGES;
  }
  return recipes.find((r) => r.tag === image);
}

/**
 * Which images the process backend can stand in for. It has no image: commands run on the
 * host's own root filesystem. That matches a shipped recipe image (rlenv/python:bookworm,
 * rlenv/blender:bookworm): stock Debian packages whose programs the host provides too
 * (a host lacking one is named). It cannot match an environment's own Dockerfile (what it adds
 * — files, a database, packages — is not on the host) nor any other image (unknown content).
 */
export function imageNeed(env: Environment): ImageNeed {
  const s = env.manifest.sandbox;
  if (s.build) {
    return {
      image: builtImageTag(env),
      dockerOnly: `its sandbox is built from ${s.build}, and what that Dockerfile adds (files, packages, data) exists only in the image`,
      missingOnHost: [],
    };
  }
  const image = s.image ?? DEFAULT_IMAGE;
  const recipe = stockRecipe(image);
  if (!recipe)
    return {
      image,
      dockerOnly: `its sandbox image ${image} is not one of the stock images the host can stand in for, so its content exists only in the image`,
      missingOnHost: [],
    };
  const missingOnHost = recipe.packages.flatMap((p) => {
    const program = PROGRAMS[p];
    return program && !onPath(program) ? [program] : [];
  });
  return { image, dockerOnly: null, missingOnHost };
}

/**
 * What a process sandbox will lack against the environment's image, as one warning line; null
 * when nothing differs that we know of (a stock image whose programs the host has).
 */
export function processDifference(env: Environment, need = imageNeed(env)): string | null {
  const name = env.manifest.name;
  if (need.dockerOnly) {
    return `sandbox process: ${name}: ${need.dockerOnly}; the process backend runs commands with this host's programs and files instead, so results can differ from Docker (use --sandbox docker)`;
  }
  if (env.manifest.sandbox.capabilities === "default")
    return `sandbox process: ${name}: sandbox.capabilities is default (Docker's default set), but process sandboxes grant no capability, so chown, apt-get and setuid fail here (use --sandbox docker)`;
  if (need.missingOnHost.length > 0) {
    return `sandbox process: ${name}: the image ${need.image} provides ${need.missingOnHost.join(", ")}, which this host lacks, so commands needing ${need.missingOnHost.length === 1 ? "it" : "them"} fail here (install ${need.missingOnHost.length === 1 ? "it" : "them"} or use --sandbox docker)`;
  }
  return null;
}
