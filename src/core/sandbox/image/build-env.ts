import { readFileSync } from "node:fs";
import path from "node:path";
import type Docker from "dockerode";
import type { Environment } from "../../environment/load-environment";
import { packFiles } from "../docker/tar";
import { builtImageTag } from "../request";
import { buildBaseImage, type Log } from "./build-base";
import { buildContext, contextContents, fromImages, imageInputsHash } from "./context";
import { listRecipes } from "./recipe";

export { fromImages };

/**
 * Builds an environment's `sandbox.build` Dockerfile (its folder is the context) on top of
 * our local base images, which are built first where it names one. The tag carries the hash of
 * what goes into the image (Dockerfile, context, base images: see imageInputsHash), so only a
 * change there needs a new build, not a task edit. No network in RUN.
 */
export async function buildEnvironmentImage(docker: Docker, env: Environment, opts: { force?: boolean; log?: Log } = {}): Promise<{ tag: string; built: boolean }> {
  const log = opts.log ?? (() => {});
  const dockerfile = env.paths.build;
  if (!dockerfile) throw new Error(`${env.manifestPath}: sandbox.build is not set, so there is nothing to build`);
  const tag = builtImageTag(env);
  if (!opts.force) {
    try {
      await docker.getImage(tag).inspect();
      log(`${tag} is up to date`);
      return { tag, built: false };
    } catch {}
  }
  const recipes = listRecipes();
  for (const base of fromImages(readFileSync(dockerfile, "utf8"))) {
    const recipe = recipes.find((r) => r.tag === base);
    if (recipe) await buildBaseImage(docker, recipe, { log });
  }
  const ctx = buildContext(env);
  const archive = await packFiles(contextContents(ctx), { uid: 0, gid: 0 });
  log(`building ${tag} from ${path.relative(process.cwd(), dockerfile)}`);
  const stream = (await docker.buildImage(archive as unknown as NodeJS.ReadableStream, {
    t: tag,
    dockerfile: path.basename(dockerfile),
    networkmode: "none",
    labels: { "rlenv.environment": env.manifest.name, "rlenv.hash": imageInputsHash(env) },
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
