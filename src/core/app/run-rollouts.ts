import type { z } from "zod";
import type { PolicySecrets } from "../policy/create";
import { type RunEnvironmentOptions, type RunEnvironmentResult, runEnvironment } from "../rollout/run-environment";
import type { RunConfig } from "../schema/run";
import { policyFactoryWith } from "./create-policy";

export interface RunRolloutsOptions extends PolicySecrets {
  env: RunEnvironmentOptions["env"];
  config: z.input<typeof RunConfig>;
  runsDir: string;
  signal?: AbortSignal;
  onProgress?: RunEnvironmentOptions["onProgress"];
  sandboxProvider?: RunEnvironmentOptions["sandboxProvider"];
}

/** A policy's rollouts on an environment: a run folder with its trajectories and summary. */
export function runRollouts(opts: RunRolloutsOptions): Promise<RunEnvironmentResult> {
  const policyFactory = policyFactoryWith(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {});
  return runEnvironment({
    env: opts.env,
    config: opts.config,
    runsDir: opts.runsDir,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.sandboxProvider ? { sandboxProvider: opts.sandboxProvider } : {}),
    ...(policyFactory ? { policyFactory } : {}),
  });
}
