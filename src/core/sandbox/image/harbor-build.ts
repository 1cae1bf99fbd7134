import path from "node:path";
import type Docker from "dockerode";
import tar from "tar-stream";
import type { Environment } from "../../model/environment";
import { STAND_IN_ROOT, standInDockerfile } from "./base-images";
import type { BaseStandIn } from "../../model/harbor";
import { lastTellingLine } from "../../util/telling-line";
import type { TreeFile } from "../../model/harbor";
import { buildBaseImage, type Log } from "./build-base";
import { listRecipes } from "./recipe";
import { imagePresent } from "./image-present";

/**
 * $RLENV_BUILD_TIMEOUT_MULTIPLIER scales every task's build_timeout_sec (as Harbor's job-level
 * multiplier does): a loaded machine builds slower than the task's author measured.
 */
export function buildTimeoutMultiplier(): number {
  const m = Number(process.env.RLENV_BUILD_TIMEOUT_MULTIPLIER ?? "1");
  return Number.isFinite(m) && m > 0 ? m : 1;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** A Harbor task's image is not built and `build: false` forbids building it. */
export class HarborImageMissingError extends Error {
  override name = "MissingImageError";
}

/** A build context as a tar, each file with its own mode (Harbor's contexts carry executable scripts). */
async function packContext(files: Map<string, TreeFile>): Promise<Buffer> {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const p of files.keys()) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  for (const d of [...dirs].sort()) pack.entry({ name: d, type: "directory", mode: 0o755, uid: 0, gid: 0 });
  for (const [name, f] of files) pack.entry({ name, mode: f.executable ? 0o755 : 0o644, uid: 0, gid: 0 }, f.bytes);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * One `docker build` of a context, with host networking (a Dockerfile's `apt-get install`
 * reaches Debian's mirror from the host: dockerd runs with --bridge=none, so the default build
 * network has no route; sandboxes started from the image still have NetworkMode none),
 * progress on `log`, and a time limit that ends the build.
 */
async function dockerBuild(
  docker: Docker,
  files: Map<string, TreeFile>,
  opts: { tag: string; labels: Record<string, string>; timeoutSec: number; log: Log; what: string },
): Promise<void> {
  const archive = await packContext(files);
  const stream = (await docker.buildImage(archive as unknown as NodeJS.ReadableStream, {
    t: opts.tag,
    dockerfile: "Dockerfile",
    networkmode: "host",
    labels: opts.labels,
    rm: true,
    forcerm: true,
  })) as NodeJS.ReadableStream & { destroy?: (e?: Error) => void };
  let tail: string[] = [];
  /** The Dockerfile step running now ("Step 3/5 : RUN apt-get install …"): a failure names it. */
  let step = "";
  let partial = "";
  const onLine = (line: string) => {
    if (!line) return;
    opts.log(line);
    if (/^Step \d+\/\d+ : /.test(line)) {
      step = line;
      tail = [];
    }
    tail = [...tail, line].slice(-15);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      const e = new Error(`building ${opts.what} took longer than its build timeout (${opts.timeoutSec} s): stopped`);
      stream.destroy?.(e);
      reject(e);
    }, opts.timeoutSec * 1000);
    docker.modem.followProgress(
      stream,
      (err: Error | null, out: { error?: string }[]) => {
        clearTimeout(timer);
        onLine(partial.trimEnd());
        const failed = err?.message ?? out.find((o) => o.error)?.error;
        if (failed) reject(new Error(`${buildFailure(opts.what, step, failed, tail)}\n${tail.join("\n")}`));
        else resolve();
      },
      (ev: { stream?: string }) => {
        // The engine colours a step's stderr (ESC[91m … ESC[0m) and sends what a program wrote in
        // pieces (apt's "E" and ": Unable to locate …" apart): whole lines, without the colour.
        partial += (ev.stream ?? "").replace(ANSI, "");
        const lines = partial.split("\n");
        partial = lines.pop() ?? "";
        for (const l of lines) onLine(l.trimEnd());
      },
    );
  });
}

/**
 * A failed build in one line: the step that failed, the engine's error and the telling line of
 * the step's output, e.g. "building x failed at Step 3/4 : RUN apt-get install -y pmars=0.9.2-1
 * (returned a non-zero code: 100) — E: Version '0.9.2-1' for 'pmars' was not found".
 */
export function buildFailure(what: string, step: string, error: string, tail: readonly string[]): string {
  const output = tail.filter((l) => l !== step && !/^ ---> /.test(l)).join("\n");
  const telling = lastTellingLine(output);
  const code = /returned a non-zero code: (\d+)/.exec(error);
  const head = step ? `building ${what} failed at ${step.replace(/\s+/g, " ").slice(0, 200)}` : `building ${what} failed`;
  return `${head} (${code ? `exit ${code[1]}` : error.split("\n")[0]})${telling && !error.includes(telling) ? ` — ${telling}` : ""}`;
}

/** Builds a stand-in base image (on rlenv/python:bookworm, built from its recipe first when missing) unless it is there. */
export async function ensureStandIn(docker: Docker, s: BaseStandIn, tag: string, log: Log): Promise<void> {
  if (await imagePresent(docker, tag)) return;
  const root = s.from ?? STAND_IN_ROOT;
  if (!(await imagePresent(docker, root))) {
    const recipe = listRecipes().find((r) => r.tag === root);
    if (!recipe) throw new Error(`the stand-in ${s.name} is built on ${root}, which is not on this machine and no recipe builds`);
    await buildBaseImage(docker, recipe, { log });
  }
  log(`building the stand-in base image ${tag} (for ${s.match})`);
  const files = new Map<string, TreeFile>([["Dockerfile", { bytes: Buffer.from(standInDockerfile(s)), executable: false }]]);
  await dockerBuild(docker, files, { tag, labels: { "rlenv.standin": s.name }, timeoutSec: 1200, log, what: `the stand-in ${tag}` });
}

/**
 * Makes sure a Harbor task's image is on this machine: its stand-in base images first, then
 * environment/ with the rewritten Dockerfile, under the tag that hashes both (so an unchanged
 * task is never built twice, and an edited one builds a new image), within the task's
 * build_timeout_sec. Under `build: false`, a missing image fails naming the command.
 */
export async function ensureHarborImage(
  docker: Docker,
  env: Environment,
  opts: { build?: boolean; log?: Log; force?: boolean } = {},
): Promise<{ image: string; built: boolean }> {
  const h = env.harbor;
  if (!h) throw new Error(`${env.manifestPath}: not a Harbor task`);
  const { tag } = h.image;
  const log = opts.log ?? (() => {});
  if (!opts.force && (await imagePresent(docker, tag))) return { image: tag, built: false };
  if (opts.build === false)
    throw new HarborImageMissingError(
      `${env.manifest.name}'s image ${tag} is not built yet; build it with: rlenv image build ${path.relative(process.cwd(), h.taskDir) || "."}`,
    );
  const started = performance.now();
  for (const s of h.image.substitutions) await ensureStandIn(docker, s.standIn, s.tag, log);
  const files = new Map(h.image.context);
  files.set("Dockerfile", { bytes: Buffer.from(h.image.dockerfile), executable: false });
  log(`building ${tag} from ${path.relative(process.cwd(), h.image.dockerfilePath)}`);
  await dockerBuild(docker, files, {
    tag,
    labels: { "rlenv.environment": env.manifest.name, "rlenv.harbor": h.taskDir },
    timeoutSec: h.image.buildTimeoutSec * buildTimeoutMultiplier(),
    log,
    what: `${env.manifest.name}'s image from ${h.image.dockerfilePath}`,
  });
  log(`built ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { image: tag, built: true };
}
