import path from "node:path";
import type { Environment } from "../model/environment";
import { loadEnvironment } from "../environment/load-environment";
import type { Problem } from "../model/problem";
import { type RunEnvironmentOptions, type RunEnvironmentResult, runEnvironment } from "../rollout/run-environment";
import { resumableRecord } from "../rollout/resume-run";
import type { RunRecord } from "../schema/run";
import { RunRequest, type RunRequestInput } from "./run-request";

/** A run's environment, loaded, and the record of the run it resumes: `--resume` is resolved here, once. */
export interface OpenedRun {
  envDir: string;
  env: Environment;
  resumed: RunRecord | null;
}

export type OpenRunResult = ({ ok: true } & OpenedRun) | { ok: false; envDir: string; errors: Problem[] };

/** Resuming: the run's own environment (and, later, its own config), whatever else was asked. */
export function openRun(envDir: string, resumeDir?: string): OpenRunResult {
  const resumed = resumeDir ? resumableRecord(path.resolve(resumeDir)) : null;
  const dir = resumed ? resumed.env.path : envDir;
  const { env, problems } = loadEnvironment(dir);
  const errors = problems.filter((p) => p.severity === "error");
  if (!env || errors.length > 0) return { ok: false, envDir: dir, errors };
  return { ok: true, envDir: dir, env, resumed };
}

export interface StartRunOptions {
  /** The environment openRun loaded for this request; opened here when absent. */
  opened?: OpenedRun;
  signal?: AbortSignal;
  onProgress?: RunEnvironmentOptions["onProgress"];
}

/** One run request through the engine: its run folder, trajectories and summary. */
export function startRun(request: RunRequestInput, opts: StartRunOptions = {}): Promise<RunEnvironmentResult> {
  const r = RunRequest.parse(request);
  const opened = opts.opened ?? openedOrThrow(r);
  const resumeDir = r.resume_dir ? path.resolve(r.resume_dir) : undefined;
  return runEnvironment({
    env: opened.env,
    // A resumed run keeps the config it started with.
    config: opened.resumed?.config ?? r.config,
    runsDir: r.runs_dir,
    ...(r.run_id ? { runId: r.run_id } : {}),
    ...(resumeDir ? { resumeDir, ...(opened.resumed ? { resumed: opened.resumed } : {}) } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(r.unsafe_no_sandbox ? { unsafeNoSandbox: true } : {}),
    ...(r.no_build ? { noBuild: true } : {}),
  });
}

function openedOrThrow(r: RunRequest): OpenedRun {
  const o = openRun(r.env_dir, r.resume_dir);
  if (!o.ok)
    throw new Error(
      `${o.envDir}: the environment has ${o.errors.length} problem${o.errors.length === 1 ? "" : "s"}; fix them first (rlenv validate)`,
    );
  return o;
}
