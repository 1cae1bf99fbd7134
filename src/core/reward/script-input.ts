import type { VerifyContext } from "../model/domain";

/** Where a script verifier finds its inputs inside the sandbox (outside the workdir, so the graded files stay as the agent left them). */
export const SCRIPT_INPUT_DIR = "/tmp/rlenv-verify";
export const SCRIPT_INPUT_FILE = `${SCRIPT_INPUT_DIR}/input.json`;
export const SCRIPT_TRAJECTORY_FILE = `${SCRIPT_INPUT_DIR}/trajectory.jsonl`;

/**
 * Environment variables above this size are left out (Linux refuses a single one over
 * 128 KiB); the script then reads the same value from stdin or RLENV_INPUT.
 */
const MAX_VAR_BYTES = 64 * 1024;

/** What a `script` verifier receives on stdin, as JSON (documented in docs/reference.md). */
export interface ScriptInput {
  env: { name: string; domain: string };
  task: { id: string; prompt: string; metadata: Record<string, unknown>; target: unknown };
  /** The submitted answer or report (submit / submit_report); null when nothing was submitted. */
  answer: unknown;
  /** The trajectory so far (every event up to verification), one JSON event a line, inside the sandbox. */
  trajectory: string;
  /** The verifier's own name and weight in the reward list. */
  verifier: { name: string; weight: number };
}

export function scriptInput(ctx: Pick<VerifyContext, "env" | "task" | "answer">, verifier: { name: string; weight: number }): ScriptInput {
  return {
    env: { name: ctx.env.manifest.name, domain: ctx.env.manifest.domain },
    task: { id: ctx.task.id, prompt: ctx.task.prompt, metadata: ctx.task.metadata ?? {}, target: ctx.task.target ?? null },
    answer: ctx.answer ?? null,
    trajectory: SCRIPT_TRAJECTORY_FILE,
    verifier,
  };
}

/** The same inputs as RLENV_* variables: JSON values for the structured ones, plain text for ids and paths. */
export function scriptEnvironment(input: ScriptInput): Record<string, string> {
  const vars: Record<string, string> = {
    RLENV_INPUT: SCRIPT_INPUT_FILE,
    RLENV_TRAJECTORY: input.trajectory,
    RLENV_ENV_NAME: input.env.name,
    RLENV_DOMAIN: input.env.domain,
    RLENV_TASK_ID: input.task.id,
    RLENV_VERIFIER: input.verifier.name,
  };
  const json: Record<string, unknown> = {
    RLENV_TASK_METADATA: input.task.metadata,
    RLENV_TARGET: input.task.target,
    RLENV_ANSWER: input.answer,
    RLENV_TASK_PROMPT: input.task.prompt,
  };
  for (const [k, v] of Object.entries(json)) {
    const text = k === "RLENV_TASK_PROMPT" ? String(v) : JSON.stringify(v);
    if (Buffer.byteLength(text) <= MAX_VAR_BYTES) vars[k] = text;
  }
  return vars;
}
