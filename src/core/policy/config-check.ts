import type { PolicyConfig } from "../schema/run";

/** Why a policy config cannot make a policy, and the field at fault (relative to the policy's config). */
export interface PolicyConfigProblem {
  field: string;
  message: string;
}

/**
 * What a policy config lacks to make any policy at all, found before a run starts: a runner refuses
 * such a job at submit, rather than accepting it and erroring every rollout. The base URL is not
 * checked here: a runner's job may start its own policy server and give it one.
 */
export function policyConfigProblem(config: PolicyConfig): PolicyConfigProblem | undefined {
  if (config.kind === "openai" && !config.model) return { field: "model", message: "policy openai needs a model (--model)" };
  if (config.kind === "replay" && !config.replay)
    return { field: "replay", message: "policy replay needs a trajectory file or run folder (replay:FILE)" };
  if (config.kind === "openai" && config.tokens && !config.tokenizer)
    return { field: "tokenizer", message: "policy openai --tokens needs the model's tokenizer folder (--tokenizer DIR)" };
  if (config.kind === "human")
    return {
      field: "kind",
      message:
        'policy human needs a person at the editor: open the task in VS Code and use "Play Task" (or fork a paused debug session with a human); the CLI and the runner cannot play it',
    };
  if (config.kind === "served")
    return {
      field: "kind",
      message: "policy served is a trainer's client playing through `rlenv serve`; a run cannot make one (serve the environment instead)",
    };
  return undefined;
}
