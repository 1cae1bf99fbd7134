import Docker from "dockerode";
import type { Environment } from "../model/environment";
import { DockerSandboxProvider, dockerAnswers } from "./docker/provider";
import type { Log } from "./image/build-base";
import { ensureEnvironmentImage } from "./image/ensure";
import { imageNeed, processDifference } from "./image/stand-in";
import { ProcessSandboxProvider } from "./process/provider";
import type { SandboxProvider } from "../model/sandbox";

export interface EnvironmentSandboxOptions {
  backend: "docker" | "process" | "auto";
  unsafeNoSandbox?: boolean;
  /** Do not build a missing image: fail naming the command that builds it. */
  noBuild?: boolean;
  /** Told once per run: what a process sandbox lacks against the image, which backend auto took and why. */
  warn?: (message: string) => void;
  /** Image build progress (default stderr). */
  log?: Log;
  docker?: Docker;
  warm?: number;
}

const stderrLine = (m: string) => process.stderr.write(`${m}\n`);

async function imagePresent(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/**
 * The sandbox provider for one environment's run. `auto` takes Docker when it answers and the
 * environment's image is there or only Docker can give it (a missing one is then built);
 * otherwise the process backend, which runs the host's programs in place of a stock image —
 * and refuses, saying why, an environment whose image it cannot stand in for. An explicit
 * `process` runs anyway and warns once, naming what will differ.
 */
export async function providerForEnvironment(env: Environment, o: EnvironmentSandboxOptions): Promise<SandboxProvider> {
  const warn = o.warn ?? stderrLine;
  const processOpts = { ...(o.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}), warn };
  const need = imageNeed(env);
  const docker = o.docker ?? new Docker();
  const onDocker = async () => {
    const p = await DockerSandboxProvider.create({ docker, ...(o.warm !== undefined ? { warm: o.warm } : {}) });
    try {
      await prepareEnvironment(p, env, o);
    } catch (e) {
      await p.shutdown();
      throw e;
    }
    return p;
  };
  if (o.backend === "docker") return onDocker();
  if (o.backend === "process") {
    const p = new ProcessSandboxProvider(processOpts);
    await prepareEnvironment(p, env, o);
    return p;
  }
  if (await dockerAnswers(docker, 1000)) {
    if (need.dockerOnly || (await imagePresent(docker, need.image))) return onDocker();
    warn(
      `sandbox auto: Docker answers but the image ${need.image} is missing (build it with \`rlenv image build\`); using the process backend`,
    );
  } else if (need.dockerOnly) {
    throw new Error(
      `sandbox auto: ${env.manifest.name} needs Docker: ${need.dockerOnly}, and the process backend cannot provide it; but Docker does not answer (is dockerd running and its socket reachable?)`,
    );
  }
  const p = new ProcessSandboxProvider(processOpts);
  await prepareEnvironment(p, env, o);
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
