import type { Environment } from "../model/environment";
import { imageInputsHash } from "./image/context";
import { parseSize } from "./size";
import type { SandboxRequest } from "../model/sandbox";

/** The image an environment builds from its own Dockerfile: a stable name per environment and per content of the image's inputs. */
export function builtImageTag(env: Environment): string {
  return `rlenv/env-${env.manifest.name}:${imageInputsHash(env).slice(0, 12)}`;
}

/**
 * Maps an environment's `sandbox` spec to a SandboxRequest: sizes parsed to bytes, the image
 * named (or, for `build:`, the tag `rlenv image build` gives the environment's Dockerfile).
 */
export function sandboxRequest(env: Environment, labels: Record<string, string> = {}, signal?: AbortSignal): SandboxRequest {
  const s = env.manifest.sandbox;
  return {
    image: s.build ? builtImageTag(env) : (s.image ?? DEFAULT_IMAGE),
    workdir: s.workdir,
    user: s.user,
    limits: {
      cpus: s.limits.cpus,
      memoryBytes: parseSize(s.limits.memory),
      pids: s.limits.pids,
      outputBytes: s.limits.output,
      tmpfsBytes: parseSize(s.limits.tmpfs),
      fileBytes: parseSize(s.limits.file_size),
      diskBytes: parseSize(s.limits.disk),
    },
    labels,
    reuse: s.reset === "restore" && s.rootfs !== "writable",
    ...(s.rootfs === "writable" ? { writableRoot: true } : {}),
    ...(s.capabilities === "default" ? { defaultCapabilities: true } : {}),
    ...(signal ? { signal } : {}),
  };
}

/** The image used when a manifest names none. */
export const DEFAULT_IMAGE = "rlenv/python:bookworm";
