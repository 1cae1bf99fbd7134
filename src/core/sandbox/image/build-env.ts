import { readFileSync } from "node:fs";
import path from "node:path";
import type Docker from "dockerode";
import type { Environment } from "../../model/environment";
import { packFiles } from "../docker/tar";
import { builtImageTag } from "../request";
import { buildBaseImage, type Log } from "./build-base";
import { standInTable, substituteBases } from "./base-images";
import { baseImages, buildContext, contextContents, fromImages, imageInputsHash } from "./context";
import { ensureStandIn } from "./harbor-build";
import { type ImageRecipe, listRecipes } from "./recipe";

export { fromImages };

/** The label on a built image holding its base images' ids at build time. */
export const BASE_LABEL = "rlenv.base";

async function imageId(docker: Docker, tag: string): Promise<string> {
  try {
    return (await docker.getImage(tag).inspect()).Id;
  } catch {
    return `${tag}@missing`;
  }
}

/** Where an environment's built image stands: current, missing, or built on a base image that has changed since. */
export async function environmentImageState(docker: Docker, env: Environment): Promise<"current" | "missing" | "stale"> {
  const tag = builtImageTag(env);
  let labels: Record<string, string> | undefined;
  try {
    labels = (await docker.getImage(tag).inspect()).Config?.Labels ?? {};
  } catch {
    return "missing";
  }
  const dockerfile = env.paths.build;
  if (!dockerfile) return "current";
  const bases = await Promise.all(baseImages(readFileSync(dockerfile, "utf8")).map((b) => imageId(docker, b)));
  return labels[BASE_LABEL] === bases.join(",") ? "current" : "stale";
}

/**
 * Builds an environment's `sandbox.build` Dockerfile (its folder is the context) on top of
 * our local base images, which are built first where it names one (a no-op when their
 * recipe has not changed). The tag carries the hash of what goes into the image (Dockerfile
 * and context: see imageInputsHash), so a task edit needs no new build; the base images' ids
 * are recorded on it, so one built on a base that has changed since is built again. No
 * network in RUN.
 */
export async function buildEnvironmentImage(
  docker: Docker,
  env: Environment,
  opts: { force?: boolean; log?: Log } = {},
): Promise<{ tag: string; built: boolean }> {
  const log = opts.log ?? (() => {});
  const dockerfile = env.paths.build;
  if (!dockerfile) throw new Error(`${env.manifestPath}: sandbox.build is not set, so there is nothing to build`);
  const tag = builtImageTag(env);
  const bases = baseImages(readFileSync(dockerfile, "utf8"));
  let recipes: ImageRecipe[] = [];
  try {
    recipes = listRecipes();
  } catch {
    // No recipes shipped alongside (an editor bundle): the bases must be there already.
  }
  for (const base of bases) {
    const recipe = recipes.find((r) => r.tag === base);
    if (recipe) await buildBaseImage(docker, recipe, { log });
  }
  const baseIds = (await Promise.all(bases.map((b) => imageId(docker, b)))).join(",");
  if (!opts.force) {
    const state = await environmentImageState(docker, env);
    if (state === "current") {
      log(`${tag} is up to date`);
      return { tag, built: false };
    }
    if (state === "stale") log(`${tag} was built on a base image that has changed since: building it again`);
  }
  const ctx = buildContext(env);
  const contents = contextContents(ctx);
  // Base images no recipe builds (ubuntu:24.04, python:3.13-slim: an imported Harbor task's) are
  // replaced by their local stand-ins, named on the log; their RUN apt-get then needs Debian's
  // mirror, so such a build (only) gets the host's network.
  const sub = substituteBases(readFileSync(dockerfile, "utf8"), standInTable());
  for (const s of sub.substitutions) {
    log(`warning: base image ${s.image} is not pulled: built on the local stand-in ${s.tag} (${s.standIn.note})`);
    await ensureStandIn(docker, s.standIn, s.tag, log);
  }
  if (sub.substitutions.length > 0) contents.set(path.relative(ctx.dir, dockerfile).split(path.sep).join("/"), Buffer.from(sub.text));
  const archive = await packFiles(contents, { uid: 0, gid: 0 });
  log(`building ${tag} from ${path.relative(process.cwd(), dockerfile)}`);
  const stream = (await docker.buildImage(archive as unknown as NodeJS.ReadableStream, {
    t: tag,
    dockerfile: path.basename(dockerfile),
    networkmode: sub.substitutions.length > 0 ? "host" : "none",
    labels: { "rlenv.environment": env.manifest.name, "rlenv.hash": imageInputsHash(env), [BASE_LABEL]: baseIds },
    rm: true,
  })) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, out: { error?: string }[]) => {
        const failed = err?.message ?? out.find((o) => o.error)?.error;
        if (failed) reject(new Error(`building ${dockerfile} failed: ${failed}`));
        else resolve();
      },
      (ev: { stream?: string }) => {
        const line = ev.stream?.trimEnd();
        if (line) log(line);
      },
    );
  });
  return { tag, built: true };
}
