import { parse, type TomlError } from "smol-toml";
import type { Problem } from "../model/problem";
import type { HarborStepConfig, HarborTaskConfig } from "../model/harbor";
import { HarborTaskToml } from "../schema/harbor-task-toml";
import { sizeToMb } from "../schema/harbor-task-tables";
import { issueProblems, unsupportedProblems } from "./task-toml-issues";
import { tomlPathSpan } from "./toml-position";

export { sizeToMb };

type Data = HarborTaskToml;
type Issue = { path: PropertyKey[]; code: string; keys?: string[] };

/**
 * Reads task.toml (schema 1.0 to 1.3) against its one schema (schema/harbor-task-toml.ts).
 * Wrong types and values are errors at the field; unknown fields, and fields this tool reads but
 * cannot honour, are warnings at the field, never silently dropped. A field in error is read
 * as if it were absent (its default), so the rest of the file still counts.
 */
export function parseTaskConfig(file: string, text: string): { config: HarborTaskConfig | null; problems: Problem[] } {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (e) {
    return { config: null, problems: [tomlSyntaxProblem(file, e)] };
  }
  const first = HarborTaskToml.safeParse(raw);
  const issues = first.success ? [] : first.error.issues;
  const problems = issues.flatMap((i) => issueProblems(file, text, raw, i));
  const skip = new Set(issues.map((i) => i.path.join(".")));
  problems.push(...unsupportedProblems(file, text, raw, skip));
  const { data, input } = first.success ? { data: first.data, input: raw } : repaired(raw, issues);
  const at = (path: PropertyKey[], message: string, severity: Problem["severity"]) =>
    problems.push({ file, ...tomlPathSpan(text, path), path: path.filter((p) => typeof p === "string").join("."), message, severity });
  const config = configOf(raw, data, input, at);
  // Each step left in the checked data keeps the [[steps]] entry it came from (entries in error are taken out).
  const rawSteps = Array.isArray(raw.steps) ? raw.steps : [];
  (Array.isArray(input.steps) ? input.steps : []).forEach((s, i) => {
    const entry = input === raw ? rawSteps.indexOf(s) : (entryOf.get(s as object) ?? -1);
    const step = config.steps[i];
    if (step && entry >= 0) step.entry = entry;
  });
  return { config, problems };
}

/** The [[steps]] entry each copied step came from. */
const entryOf = new WeakMap<object, number>();

/** The data with every value in error taken out (a required one takes its table or entry with it), parsed again until it passes. */
function repaired(raw: Record<string, unknown>, issues: readonly Issue[]): { data: Data; input: Record<string, unknown> } {
  const input = structuredClone(raw);
  for (const [i, s] of (Array.isArray(input.steps) ? input.steps : []).entries())
    if (s !== null && typeof s === "object") entryOf.set(s, i);
  let pending = issues;
  for (let pass = 0; pass < 16; pass++) {
    // Deepest first, and array entries from the last, so taking one out does not move another.
    const order = [...pending].sort((a, b) => compareDesc(a.path, b.path));
    for (const issue of order) remove(input, issue);
    const again = HarborTaskToml.safeParse(input);
    if (again.success) return { data: again.data, input };
    pending = again.error.issues;
  }
  // Unreachable for TOML input (each pass takes at least one value out); the defaults are the honest fallback.
  return { data: HarborTaskToml.parse({}), input: {} };
}

function compareDesc(a: readonly PropertyKey[], b: readonly PropertyKey[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return y - x;
    return String(y).localeCompare(String(x));
  }
  return b.length - a.length;
}

/** Takes out what an issue is about: unknown keys, or the value at its path (its container when the value is missing). */
function remove(root: Record<string, unknown>, issue: Issue): void {
  const parentOf = (path: readonly PropertyKey[]): unknown =>
    path.reduce<unknown>(
      (cur, seg) => (cur !== null && typeof cur === "object" ? (cur as Record<PropertyKey, unknown>)[seg] : undefined),
      root,
    );
  if (issue.code === "unrecognized_keys") {
    const table = parentOf(issue.path);
    if (table && typeof table === "object") for (const k of issue.keys ?? []) delete (table as Record<string, unknown>)[k];
    return;
  }
  let path = issue.path;
  while (path.length > 0) {
    const parent = parentOf(path.slice(0, -1));
    const key = path[path.length - 1] as PropertyKey;
    if (parent !== null && typeof parent === "object" && key in parent) {
      if (Array.isArray(parent) && typeof key === "number") parent.splice(key, 1);
      else delete (parent as Record<PropertyKey, unknown>)[key];
      return;
    }
    path = path.slice(0, -1);
  }
}

type At = (path: PropertyKey[], message: string, severity: Problem["severity"]) => void;

/** The config a run uses, from the checked data; what this tool cannot do with a valid value is said here. */
function configOf(raw: Record<string, unknown>, data: Data, input: Record<string, unknown>, at: At): HarborTaskConfig {
  const versionKey = data.schema_version !== undefined ? "schema_version" : "version";
  const schemaVersion = data.schema_version ?? data.version ?? "1.0";
  if (!/^1\.[0-3]$/.test(schemaVersion))
    at([versionKey], `schema ${schemaVersion} is newer than 1.3, the last one read here: fields added since are warned about`, "warning");
  const env = data.environment;
  const given = (input.environment ?? {}) as Record<string, unknown>;
  const memoryMb = given.memory_mb !== undefined || env.memory === undefined ? env.memory_mb : sizeOf(env.memory);
  const storageMb = given.storage_mb !== undefined || env.storage === undefined ? env.storage_mb : sizeOf(env.storage);
  if (env.docker_image)
    at(
      ["environment", "docker_image"],
      `the prebuilt image ${env.docker_image} is not pulled (no registry is reached): the task's environment/Dockerfile is built instead, as Harbor's --force-build does`,
      "warning",
    );
  const steps = stepsOf(data, raw, at);
  return {
    schemaVersion,
    raw,
    ...(data.task?.name !== undefined ? { name: data.task.name } : {}),
    metadata: data.metadata,
    agentTimeoutSec: data.agent.timeout_sec ?? (schemaVersion === "1.0" ? 600 : null),
    verifierTimeoutSec: data.verifier.timeout_sec,
    buildTimeoutSec: env.build_timeout_sec,
    ...(env.docker_image ? { dockerImage: env.docker_image } : {}),
    cpus: env.cpus,
    memoryMb,
    storageMb,
    ...(env.workdir ? { workdir: env.workdir } : {}),
    networkMode: env.network_mode ?? (env.allow_internet === false ? "no-network" : "public"),
    env: envStrings(env.env),
    verifierEnv: envStrings(data.verifier.env),
    solutionEnv: envStrings(data.solution.env),
    steps,
    multiStepRewardStrategy: data.multi_step_reward_strategy,
  };
}

/** A checked size in megabytes (a number is megabytes already). */
const sizeOf = (s: string | number): number => (typeof s === "number" ? s : (sizeToMb(s) ?? 0));

/** An env table's values as the strings the process gets (TOML numbers and booleans written out). */
const envStrings = (env: Record<string, string | number | boolean> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, String(v)]));

/** `[[steps]]` as Harbor's StepConfig reads them; a name used twice is an error at the second one (placed by its entry in the file). */
function stepsOf(data: Data, raw: Record<string, unknown>, at: At): HarborStepConfig[] {
  const seen = new Set<string>();
  (Array.isArray(raw.steps) ? raw.steps : []).forEach((s: unknown, i) => {
    const name = s !== null && typeof s === "object" ? (s as Record<string, unknown>).name : undefined;
    if (typeof name !== "string") return;
    if (seen.has(name)) at(["steps", i, "name"], `step '${name}' is named twice: step names must be unique`, "error");
    seen.add(name);
  });
  // A step's timeouts have no default of their own: when a step leaves one out, the task's applies.
  return (data.steps ?? []).map((s) => ({
    name: s.name,
    ...(s.min_reward !== undefined ? { minReward: s.min_reward } : {}),
    ...(s.agent?.timeout_sec !== undefined ? { agentTimeoutSec: s.agent.timeout_sec } : {}),
    ...(s.verifier?.timeout_sec !== undefined ? { verifierTimeoutSec: s.verifier.timeout_sec } : {}),
    verifierEnv: envStrings(s.verifier?.env),
  }));
}

/** A TOML syntax error as a problem at its line and column. */
function tomlSyntaxProblem(file: string, e: unknown): Problem {
  const err = e as TomlError;
  const line = err.line ?? 1;
  const column = err.column ?? 1;
  return {
    file,
    line,
    column,
    endLine: line,
    endColumn: column + 1,
    path: "",
    message: `not valid TOML: ${(err.message ?? String(e)).split("\n")[0]}`,
    severity: "error",
  };
}
