import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Problem } from "../../model/problem";
import { BUNDLE_JOB_FILE, JobSpec } from "../api";
import type { Executor } from "./executor";
import { policyConfigProblem } from "../../policy/config-check";
import { validateUpload } from "./upload-validation";

/** A submit refused for its content: HTTP 400 with the field at fault (and, for an environment that does not load, its problems). */
export class JobSpecError extends Error {
  override name = "JobSpecError";
  constructor(
    message: string,
    readonly field?: string,
    readonly problems?: Problem[],
  ) {
    super(message);
  }
}

/** A new job's id: its submit time to the second, then six random hex digits. */
export function newJobId(): string {
  return `j${new Date()
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14)}-${randomBytes(3).toString("hex")}`;
}

/** The bundle's job.json, parsed, and refused with its field when a job could not run from it. */
export function readBundleSpec(staging: string, executors: Partial<Record<string, Executor>>): JobSpec {
  const specFile = path.join(staging, BUNDLE_JOB_FILE);
  if (!existsSync(specFile)) throw new JobSpecError(`the bundle has no ${BUNDLE_JOB_FILE}`, BUNDLE_JOB_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(specFile, "utf8"));
  } catch (e) {
    throw new JobSpecError(`${BUNDLE_JOB_FILE} is not JSON: ${(e as Error).message}`, BUNDLE_JOB_FILE);
  }
  const parsed = JobSpec.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    throw new JobSpecError(`${BUNDLE_JOB_FILE}: ${field ? `${field}: ` : ""}${issue?.message ?? "invalid"}`, field);
  }
  const spec = parsed.data;
  // A policy that cannot be made would error every rollout of an accepted job: refused here, with its field.
  const unplayable = policyConfigProblem(spec.config.policy);
  if (unplayable)
    throw new JobSpecError(
      `${BUNDLE_JOB_FILE}: config.policy.${unplayable.field}: ${unplayable.message}`,
      `config.policy.${unplayable.field}`,
    );
  if (!executors[spec.executor])
    throw new JobSpecError(
      `executor "${spec.executor}" is not configured on this runner (has: ${Object.keys(executors).join(", ")})`,
      "executor",
    );
  return spec;
}

type CheckedUpload = Extract<Awaited<ReturnType<typeof validateUpload>>, { ok: true }>["env"];

/** The uploaded environment, loaded in a worker thread (a big or hostile one must not stall the runner's other requests). */
export async function checkedEnvironment(envDir: string): Promise<CheckedUpload> {
  const checked = await validateUpload(envDir);
  if (checked.ok) return checked.env;
  const p = checked.problems[0];
  const more =
    checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more problem${checked.problems.length === 2 ? "" : "s"})` : "";
  throw new JobSpecError(
    `environment does not load: ${p ? `${p.file}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ""}${p.message}` : "unknown problem"}${more}`,
    p?.path,
    checked.problems,
  );
}

/** The tasks a job selects and the rollouts it will end: tasks × k, or, for a pool's shard that names its samples, theirs. */
export function jobSize(spec: JobSpec, env: CheckedUpload): { tasks: number; total: number } {
  const named = spec.config.tasks?.length ? spec.config.tasks : spec.config.samples ? Object.keys(spec.config.samples) : undefined;
  const selected = named ? env.taskIds.filter((t) => named.includes(t)).length : env.taskIds.length;
  const samples = spec.config.samples;
  const total = samples
    ? env.taskIds.filter((t) => named?.includes(t)).reduce((n, t) => n + (samples[t] ? new Set(samples[t]).size : spec.config.k), 0)
    : selected * spec.config.k;
  return { tasks: selected, total };
}
