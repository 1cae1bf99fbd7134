import type { SlurmNode, SlurmSubmit, SlurmTaskState } from "./slurm-client";

/**
 * slurmrestd's JSON across its openapi versions. v0.0.38 (Slurm 21.08–22.05) sends numbers and
 * strings; v0.0.39 onward (23.02+; current Slurm serves v0.0.42–v0.0.44) wraps numbers as
 * `{set, infinite, number}`, states and flags as arrays, the exit code as
 * `{status, return_code, signal}`, and takes the job's environment as "K=V" strings. The readers
 * take either shape whatever version was asked (a proxy or a patched build may mix them); the
 * writer follows the version.
 */

/** The versions `--slurm-api-version auto` tries, newest first. */
export const SLURM_API_VERSIONS = ["v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38"] as const;

/** Whether a version speaks the wrapped shapes (v0.0.39 onward). */
export function wrappedShapes(version: string): boolean {
  const m = /^v0\.0\.(\d+)$/.exec(version);
  if (!m) throw new Error(`a Slurm REST API version looks like v0.0.42, got '${version}'`);
  return Number(m[1]) >= 39;
}

/** A number, or v0.0.39+'s `{set, infinite, number}` (unset or infinite: undefined). */
export function noVal(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (v && typeof v === "object") {
    const o = v as { set?: boolean; infinite?: boolean; number?: unknown };
    if (o.set === false || o.infinite === true) return undefined;
    return typeof o.number === "number" ? o.number : undefined;
  }
  return undefined;
}

/** A state as one word ("RUNNING"), from a string or v0.0.39+'s list (["PENDING", "REQUEUED"]: the first). */
export function stateWord(v: unknown): string {
  if (Array.isArray(v)) return String(v[0] ?? "UNKNOWN");
  return typeof v === "string" && v ? v : "UNKNOWN";
}

/** The wait status (exit code << 8 | signal), from v0.0.38's number or v0.0.39+'s `{return_code, signal}`. */
export function waitStatus(v: unknown): number {
  if (typeof v === "number") return v;
  if (v && typeof v === "object") {
    const o = v as { return_code?: unknown; signal?: { id?: unknown } };
    const code = noVal(o.return_code) ?? 0;
    const signal = noVal(o.signal?.id) ?? 0;
    return ((code & 0xff) << 8) | (signal & 0x7f);
  }
  return 0;
}

/** The `job` object of a submit, in the version's shape. */
export function jobDescription(s: SlurmSubmit, version: string): Record<string, unknown> {
  const wrapped = wrappedShapes(version);
  const job: Record<string, unknown> = {
    name: s.name,
    current_working_directory: s.cwd,
    standard_output: s.stdout,
    environment: wrapped ? Object.entries(s.environment).map(([k, v]) => `${k}=${v}`) : s.environment,
  };
  if (s.array) job.array = s.array;
  if (s.partition) job.partition = s.partition;
  if (s.gres) job[wrapped ? "tres_per_node" : "gres"] = wrapped ? `gres/${s.gres}` : s.gres;
  if (s.timeLimitMin) job.time_limit = wrapped ? { set: true, infinite: false, number: s.timeLimitMin } : s.timeLimitMin;
  if (s.hold) job.hold = true;
  return job;
}

/** One job record of GET /job/{id}. */
export function readTask(j: Record<string, unknown>): SlurmTaskState {
  const arrayTaskId = noVal(j.array_task_id);
  return {
    jobId: noVal(j.job_id) ?? 0,
    arrayJobId: noVal(j.array_job_id) ?? 0,
    arrayTaskId: arrayTaskId ?? null,
    ...(typeof j.array_task_string === "string" && j.array_task_string ? { arrayTaskString: j.array_task_string } : {}),
    state: stateWord(j.job_state),
    exitCode: waitStatus(j.exit_code),
    ...(typeof j.batch_host === "string" && j.batch_host ? { node: j.batch_host } : {}),
  };
}

/** One node record of GET /nodes: its state with its flags joined as sinfo shows them (idle+drain). */
export function readNode(n: Record<string, unknown>): SlurmNode {
  const states = Array.isArray(n.state) ? n.state.map(String) : [String(n.state ?? "unknown")];
  const flags = Array.isArray(n.state_flags) ? n.state_flags.map(String) : [];
  return {
    name: String(n.name ?? ""),
    state: [...states, ...flags].join("+").toLowerCase(),
    partitions: Array.isArray(n.partitions) ? n.partitions.map(String) : [],
    cpus: noVal(n.cpus) ?? 0,
    allocCpus: noVal(n.alloc_cpus) ?? 0,
  };
}
