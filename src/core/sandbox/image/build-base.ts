import { spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { imageScriptsDir, type ImageRecipe } from "./recipe";

export type Log = (line: string) => void;

/** Where rootfs tarballs are cached, keyed by recipe hash, so machines reuse a debootstrap. */
export function rootfsCacheDir(): string {
  const base = process.env.RLENV_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "rlenv");
  return path.join(base, "rootfs");
}

/** The recipe hash recorded on an image, or null when the image is absent. */
export async function imageRecipeHash(docker: Docker, tag: string): Promise<string | null> {
  try {
    const info = await docker.getImage(tag).inspect();
    return info.Config?.Labels?.["rlenv.recipe"] ?? "";
  } catch {
    return null;
  }
}

function runScript(args: string[], log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", args, { stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const onData = (c: Buffer) => {
      for (const line of c.toString().split("\n")) if (line.trim()) log(line);
      tail = (tail + c.toString()).slice(-2000);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(" ")} failed (exit ${code}):\n${tail}`))));
  });
}

/** Builds (or reuses) the rootfs tarball of a recipe; returns its path. */
export async function ensureRootfs(recipe: ImageRecipe, log: Log): Promise<string> {
  const dir = rootfsCacheDir();
  mkdirSync(dir, { recursive: true });
  const tar = path.join(dir, `${recipe.name}-${recipe.hash}.tar`);
  if (existsSync(tar)) {
    log(`rootfs cached: ${tar}`);
    return tar;
  }
  log(`building the ${recipe.name} rootfs with debootstrap (a few minutes)…`);
  await runScript([path.join(imageScriptsDir(), "rootfs.sh"), recipe.file, tar], log);
  return tar;
}

/**
 * Makes the image of a recipe: skipped when an image with that tag already carries the
 * recipe's hash; otherwise the (cached) rootfs is `docker import`-ed with our labels.
 */
export async function buildBaseImage(
  docker: Docker,
  recipe: ImageRecipe,
  opts: { force?: boolean; log?: Log } = {},
): Promise<{ tag: string; built: boolean }> {
  const log = opts.log ?? (() => {});
  if (!opts.force && (await imageRecipeHash(docker, recipe.tag)) === recipe.hash) {
    log(`${recipe.tag} is up to date (recipe ${recipe.hash})`);
    return { tag: recipe.tag, built: false };
  }
  const tar = await ensureRootfs(recipe, log);
  const [repo, tag] = recipe.tag.split(":");
  log(`importing ${tar} as ${recipe.tag}`);
  // The engine takes `changes` as a repeated query parameter; dockerode passes arrays through.
  const importOpts: Record<string, unknown> = {
    repo,
    tag: tag ?? "latest",
    changes: [
      `LABEL rlenv.recipe=${recipe.hash} rlenv.image=${recipe.name}`,
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8",
      "WORKDIR /workspace",
      'CMD ["/bin/sh"]',
    ],
  };
  const stream = (await docker.importImage(createReadStream(tar), importOpts)) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve()));
  });
  if ((await imageRecipeHash(docker, recipe.tag)) !== recipe.hash)
    throw new Error(`docker import did not produce ${recipe.tag} with recipe ${recipe.hash}`);
  log(`built ${recipe.tag}`);
  return { tag: recipe.tag, built: true };
}
