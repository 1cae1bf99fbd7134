import Docker from "dockerode";
import type { Environment } from "../model/environment";
import { DockerSandboxProvider, dockerAnswers } from "./docker/provider";
import type { Log } from "./image/build-base";
import { ensureEnvironmentImage } from "./image/ensure";
import { imagePresent } from "./image/image-present";
import { imageNeed, processDifference } from "./image/stand-in";
import { ProcessSandboxProvider } from "./process/provider";
import { DEFAULT_IMAGE } from "./request";
import type { SandboxProvider } from "../model/sandbox";

/** The backend a user names: `auto` is decided by {@link chooseBackend}, the one rule for every command. */
export type BackendName = "docker" | "process" | "auto";

export interface BackendOptions {
  backend: BackendName;
  /** Allow the process backend to run commands unisolated when nothing can isolate them. */
  unsafeNoSandbox?: boolean;
  /** Warm containers kept per sandbox shape by the docker backend (default 2). */
  warm?: number;
  /** Told once: the unsafe warning, which backend auto took and why, what a process sandbox lacks. */
  warn?: (message: string) => void;
  /** An engine connection other than the default socket / DOCKER_HOST. */
  docker?: Docker;
}

/** What `auto` weighs: the image the sandboxes start from, and why only Docker can give it (null: the host can stand in). */
export interface BackendNeed {
  image: string;
  dockerOnly: string | null;
}

export interface EnvironmentSandboxOptions extends BackendOptions {
  /** Do not build a missing image: fail naming the command that builds it. */
  noBuild?: boolean;
  /** Image build progress (default stderr). */
  log?: Log;
}

const stderrLine = (m: string) => process.stderr.write(`${m}\n`);

/** An image check for `auto`: an engine that fails to say counts as the image not being there. */
const imageThere = (docker: Docker, image: string) => imagePresent(docker, image).catch(() => false);

/**
 * The one rule for `auto`, in `rlenv run`, validate, the audit and the debugger: Docker when it
 * answers and the image is there or only Docker can give it (a missing one is then built by
 * {@link prepareEnvironment}); otherwise the process backend, which runs the host's programs in
 * place of a stock image. An image only Docker can give, with no Docker answering, is an error
 * saying why. `dockerWhy` says why the process backend was taken (its no-sandbox error names it).
 */
export async function chooseBackend(
  o: Pick<BackendOptions, "backend" | "warn">,
  docker: Docker,
  need: BackendNeed,
  name = "this environment",
): Promise<{ backend: "docker" | "process"; dockerWhy?: string }> {
  if (o.backend !== "auto") return { backend: o.backend };
  if (await dockerAnswers(docker, 1000)) {
    if (need.dockerOnly || (await imageThere(docker, need.image))) return { backend: "docker" };
    const dockerWhy = `Docker answers but the image ${need.image} is missing (build it with \`rlenv image build\`)`;
    // Docker is there but this environment's image is not: say why the process backend is used.
    (o.warn ?? stderrLine)(`sandbox auto: ${dockerWhy}; using the process backend`);
    return { backend: "process", dockerWhy };
  }
  if (need.dockerOnly) {
    throw new Error(
      `sandbox auto: ${name} needs Docker: ${need.dockerOnly}, and the process backend cannot provide it; but Docker does not answer (is dockerd running and its socket reachable?)`,
    );
  }
  return { backend: "process", dockerWhy: "Docker does not answer (is dockerd running and its socket reachable?)" };
}

/** Opens the provider of a chosen backend. */
async function openBackend(o: BackendOptions, docker: Docker | undefined, choice: { backend: "docker" | "process"; dockerWhy?: string }) {
  if (choice.backend === "docker") {
    return DockerSandboxProvider.create({ ...(docker ? { docker } : {}), ...(o.warm !== undefined ? { warm: o.warm } : {}) });
  }
  return new ProcessSandboxProvider({
    ...(o.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}),
    ...(o.warn ? { warn: o.warn } : {}),
    ...(choice.dockerWhy ? { dockerWhy: choice.dockerWhy } : {}),
  });
}

/**
 * The sandbox provider for no environment in particular (a provider shared by many): `auto`
 * weighs the stock image (default rlenv/python:bookworm), as {@link chooseBackend} says.
 */
export async function providerForBackend(o: BackendOptions & { image?: string }): Promise<SandboxProvider> {
  if (o.backend !== "auto") return openBackend(o, o.docker, { backend: o.backend });
  const docker = o.docker ?? new Docker();
  return openBackend(o, docker, await chooseBackend(o, docker, { image: o.image ?? DEFAULT_IMAGE, dockerOnly: null }));
}

/**
 * The sandbox provider for one environment's run, readied for it ({@link prepareEnvironment}):
 * `auto` weighs the environment's own image, as {@link chooseBackend} says. An explicit
 * `process` runs anyway and warns once, naming what will differ.
 */
export async function providerForEnvironment(env: Environment, o: EnvironmentSandboxOptions): Promise<SandboxProvider> {
  const warn = o.warn ?? stderrLine;
  const docker = o.docker ?? new Docker();
  const choice = await chooseBackend({ ...o, warn }, docker, imageNeed(env), env.manifest.name);
  const p = await openBackend({ ...o, warn }, docker, choice);
  try {
    await prepareEnvironment(p, env, o);
  } catch (e) {
    await p.shutdown();
    throw e;
  }
  return p;
}

/**
 * Readies a provider (shared or not) for one environment: on Docker, its image is built when
 * missing (or, under noBuild, the error names the command); on the process backend, one
 * warning says what will differ from the image.
 */
export async function prepareEnvironment(
  provider: SandboxProvider,
  env: Environment,
  o: Pick<EnvironmentSandboxOptions, "noBuild" | "warn" | "log">,
): Promise<void> {
  if (provider instanceof DockerSandboxProvider) {
    await ensureEnvironmentImage(provider.docker, env, { build: !o.noBuild, log: o.log ?? stderrLine });
    return;
  }
  const difference = processDifference(env);
  if (difference) (o.warn ?? stderrLine)(difference);
}
