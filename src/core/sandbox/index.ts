import Docker from "dockerode";
import { DockerSandboxProvider, dockerAnswers } from "./docker/provider";
import { ProcessSandboxProvider } from "./process/provider";
import { DEFAULT_IMAGE } from "./request";
import type { SandboxProvider } from "../model/sandbox";

export type { ExecOptions, ExecResult, ExecStatus, Sandbox, SandboxProvider, SandboxRequest } from "../model/sandbox";
export { sandboxRequest, builtImageTag, DEFAULT_IMAGE } from "./request";
export { parseSize } from "./size";
export { ProcessSandboxProvider, UNSAFE_WARNING } from "./process/provider";
export { DockerSandboxProvider, dockerAnswers } from "./docker/provider";

export interface CreateSandboxProviderOptions {
  /** "auto": docker when the engine answers and the image exists, else process. */
  backend: "docker" | "process" | "auto";
  /** Allow the process backend to run commands unisolated when nothing can isolate them. */
  unsafeNoSandbox?: boolean;
  /** The image "auto" checks for (default rlenv/python:bookworm). */
  image?: string;
  /** Warm containers kept per sandbox shape by the docker backend (default 2). */
  warm?: number;
  /** Where the unsafe warning goes (default stderr). */
  warn?: (message: string) => void;
  /** An engine connection other than the default socket / DOCKER_HOST. */
  docker?: Docker;
}

async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/** Makes the sandbox provider the options ask for; "auto" falls back to the process backend. */
export async function createSandboxProvider(opts: CreateSandboxProviderOptions): Promise<SandboxProvider> {
  const processOpts = { ...(opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}), ...(opts.warn ? { warn: opts.warn } : {}) };
  const dockerOpts = { ...(opts.docker ? { docker: opts.docker } : {}), ...(opts.warm !== undefined ? { warm: opts.warm } : {}) };
  if (opts.backend === "process") return new ProcessSandboxProvider(processOpts);
  if (opts.backend === "docker") return DockerSandboxProvider.create(dockerOpts);
  const docker = opts.docker ?? new Docker();
  let dockerWhy = "Docker does not answer (is dockerd running and its socket reachable?)";
  if (await dockerAnswers(docker, 1000)) {
    const image = opts.image ?? DEFAULT_IMAGE;
    if (await imageExists(docker, image)) return DockerSandboxProvider.create({ ...dockerOpts, docker });
    dockerWhy = `Docker answers but the image ${image} is missing (build it with \`rlenv image build\`)`;
    // Docker is there but this environment's image is not: say why the process backend is used.
    (opts.warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(`sandbox auto: ${dockerWhy}; using the process backend`);
  }
  return new ProcessSandboxProvider({ ...processOpts, dockerWhy });
}
