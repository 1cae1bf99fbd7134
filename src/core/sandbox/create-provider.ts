import { type BackendOptions, providerForBackend } from "./select";
import type { SandboxProvider } from "../model/sandbox";

export interface CreateSandboxProviderOptions extends BackendOptions {
  /** The image "auto" checks for (default rlenv/python:bookworm). */
  image?: string;
}

/**
 * Makes the sandbox provider the options ask for, for no environment in particular; "auto"
 * follows the one rule of select.ts (chooseBackend) on the stock image. A run of one environment
 * takes providerForEnvironment, which weighs that environment's image and readies it.
 */
export function createSandboxProvider(opts: CreateSandboxProviderOptions): Promise<SandboxProvider> {
  return providerForBackend(opts);
}
