import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { Environment } from "../../model/environment";

/** Never part of a build context: tools' caches, version control, runs. */
const SKIP = new Set(["runs", "node_modules", ".git", "__pycache__", ".pytest_cache"]);

/** Base images a Dockerfile starts FROM. */
export function fromImages(dockerfile: string): string[] {
  return [...dockerfile.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)/gim)].map((m) => m[1] ?? "");
}

/** The images a Dockerfile builds on: its FROM images less its own stages (`FROM base AS build` … `FROM build`), each once. */
export function baseImages(dockerfile: string): string[] {
  const stages = new Set([...dockerfile.matchAll(/^\s*FROM\s+.*\s+AS\s+(\S+)\s*$/gim)].map((m) => (m[1] ?? "").toLowerCase()));
  return [...new Set(fromImages(dockerfile).filter((b) => !stages.has(b.toLowerCase())))];
}

/** What an environment's image is built from: the Dockerfile, its folder as context, and the files sent. */
export interface BuildContext {
  dockerfile: string;
  dir: string;
  /** Context-relative paths, sorted: exactly what is packed for the engine. */
  files: string[];
}

const inside = (p: string, root: string) => p === root || p.startsWith(root + path.sep);

/**
 * The build context of an environment's `sandbox.build`: the Dockerfile's folder. Where that
 * folder is the environment itself, the manifest and the tasks are left out: they are the
 * environment's description, never image content, and a task edit must not change the image.
 * A link is followed only when it stays inside the context (its target's bytes are sent);
 * one that leads out is refused, so no host file reaches an image through a link.
 */
export function buildContext(env: Environment): BuildContext {
  const dockerfile = env.paths.build;
  if (!dockerfile) throw new Error(`${env.manifestPath}: sandbox.build is not set, so there is nothing to build`);
  const dir = path.dirname(dockerfile);
  const realDir = realpathSync(dir);
  const leaveOut = new Set<string>();
  if (path.resolve(dir) === path.resolve(env.dir)) {
    leaveOut.add(path.relative(dir, env.manifestPath));
    leaveOut.add(path.relative(dir, env.paths.tasks));
  }
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (SKIP.has(name)) continue;
      const r = rel ? `${rel}/${name}` : name;
      if (leaveOut.has(r)) continue;
      const abs = path.join(dir, r);
      let st = lstatSync(abs);
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(abs);
        } catch {
          continue; // a dangling link carries nothing
        }
        if (!inside(real, realDir))
          throw new Error(
            `${abs}: error: the build context holds a link that leads out of it (to ${real}); links outside the environment are refused`,
          );
        st = lstatSync(real);
      }
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) files.push(r);
    }
  };
  walk("");
  return { dockerfile, dir, files };
}

/** The bytes of the context's files, for the tar sent to the engine. */
export function contextContents(ctx: BuildContext): Map<string, Buffer> {
  return new Map(ctx.files.map((f) => [f, readFileSync(path.join(ctx.dir, f))]));
}

const hashes = new WeakMap<Environment, string>();

/**
 * Content hash of what goes into an environment's built image: the Dockerfile's path in the
 * context and every file sent (path and bytes; the Dockerfile with its FROM lines is one).
 * Task, prompt or reward edits leave it as it was, so they need no rebuild. The base images'
 * content is not known without the engine: the build records their image ids on the image
 * (see buildEnvironmentImage), and an image whose base has changed since is rebuilt under the
 * same tag. Cached per loaded environment (every rollout asks for its image tag).
 */
export function imageInputsHash(env: Environment): string {
  const known = hashes.get(env);
  if (known) return known;
  const ctx = buildContext(env);
  const h = createHash("sha256");
  h.update(`dockerfile\0${path.relative(ctx.dir, ctx.dockerfile)}\0`);
  for (const f of ctx.files) {
    const bytes = readFileSync(path.join(ctx.dir, f));
    h.update(`file\0${f}\0${bytes.length}\0`);
    h.update(bytes);
  }
  const out = h.digest("hex").slice(0, 16);
  hashes.set(env, out);
  return out;
}
