import { z } from "zod";
import { RunConfig } from "./run";

/**
 * One run as every door asks for it: the CLI's flags, the editor's commands, and the runner's
 * executors, which hand each work unit its request as a file (`rlenv run --request FILE`), so a
 * unit runs the job's config as it is, with no trip through command-line flags and back.
 */
export const RunRequest = z.object({
  /** The environment folder (a resumed run's own, from its record). */
  env_dir: z.string(),
  /** Where the run folder goes. */
  runs_dir: z.string(),
  config: RunConfig,
  run_id: z.string().optional(),
  /** Finish this run folder: its own config and environment; only the rollouts that did not end run. */
  resume_dir: z.string().optional(),
  unsafe_no_sandbox: z.boolean().optional(),
  /** A missing sandbox image is not built: the run fails naming the command that builds it. */
  no_build: z.boolean().optional(),
});
export type RunRequest = z.infer<typeof RunRequest>;
export type RunRequestInput = z.input<typeof RunRequest>;
