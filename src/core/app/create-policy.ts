import type { LoadedTask } from "../model/environment";
import { createPolicy as policyFor, type PolicySecrets } from "../policy/create";
import type { Policy } from "../policy/types";
import type { PolicyFactory } from "../rollout/run-environment";
import type { PolicyConfig } from "../schema/run";

export interface CreatePolicyOptions extends PolicySecrets {
  config: PolicyConfig;
  task: LoadedTask;
  sample: number;
}

/**
 * The policy for one rollout, built the one way every surface builds it: the CLI and the runner
 * read the key from the environment, the editor passes the one it keeps in SecretStorage.
 */
export function createPolicy(opts: CreatePolicyOptions): Policy {
  return policyFor(opts.config, opts.task, opts.sample, opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {});
}

/** A run's policy factory carrying the secrets; undefined (the run's default) when there are none. */
export function policyFactoryWith(secrets: PolicySecrets): PolicyFactory | undefined {
  if (secrets.apiKey === undefined) return undefined;
  const { apiKey } = secrets;
  return ({ task, sample, config }) => createPolicy({ config: config.policy, task, sample, apiKey });
}
