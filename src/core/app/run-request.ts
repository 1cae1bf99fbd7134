import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { RunConfig } from "../schema/run";

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

/** Writes a request where a unit reads it (the executors). */
export function writeRunRequest(file: string, request: RunRequestInput): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(RunRequest.parse(request), null, 2)}\n`);
}

/** A request file, parsed: what is wrong with it is named with the field. */
export function readRunRequest(file: string): RunRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`--request ${file}: ${(e as Error).message}`);
  }
  const r = RunRequest.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`--request ${file}: ${i ? `${i.path.join(".") || "value"}: ${i.message}` : "not a run request"}`);
  }
  return r.data;
}
