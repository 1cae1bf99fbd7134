import { parse, type TomlError } from "smol-toml";
import type { Problem } from "../model/problem";
import { tomlSpan } from "./toml-position";
import type { HarborStepConfig, HarborTaskConfig } from "../model/harbor";

/** Fields of a `[[steps]]` entry Harbor knows, and those read but not acted on here. */
export const STEP_KNOWN: ReadonlySet<string> = new Set(["name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"]);
const STEP_UNSUPPORTED: Record<string, string> = {
  healthcheck: "the step's health check is not run before its agent starts",
  artifacts: "the step's artifacts are not copied out of the sandbox",
  "agent.user": "the agent runs as root in the task's sandbox",
  "verifier.user": "the verifier runs as root in the task's sandbox",
  "verifier.environment_mode": "the verifier runs in the agent's sandbox (shared)",
  "verifier.environment": "the verifier runs in the agent's sandbox; a separate verifier image is not built",
  "verifier.collect": "no files are collected from the sandbox besides /logs/verifier's reward",
};

/** Fields Harbor knows, by table; anything else is an unknown-field warning. */
export const KNOWN: Record<string, ReadonlySet<string>> = {
  "": new Set([
    "version",
    "schema_version",
    "source",
    "artifacts",
    "multi_step_reward_strategy",
    "metadata",
    "task",
    "verifier",
    "agent",
    "solution",
    "environment",
    "steps",
  ]),
  task: new Set(["name", "description", "authors", "keywords"]),
  verifier: new Set(["timeout_sec", "env", "user", "network_mode", "allowed_hosts", "environment_mode", "environment", "collect"]),
  agent: new Set(["timeout_sec", "user", "network_mode", "allowed_hosts"]),
  solution: new Set(["env"]),
  environment: new Set([
    "build_timeout_sec",
    "docker_image",
    "cpus",
    "memory",
    "storage",
    "memory_mb",
    "storage_mb",
    "os",
    "gpus",
    "gpu_types",
    "tpu",
    "network_mode",
    "allowed_hosts",
    "allow_internet",
    "env",
    "mcp_servers",
    "skills_dir",
    "workdir",
    "healthcheck",
  ]),
};

/** Fields read but not acted on here, with what that means for a run. */
const UNSUPPORTED: Record<string, string> = {
  "environment.storage":
    "the disk size bounds each file (sandbox.limits.file_size), not their total (the engine's storage quota needs xfs with pquota)",
  "environment.storage_mb":
    "the disk size bounds each file (sandbox.limits.file_size), not their total (the engine's storage quota needs xfs with pquota)",
  "environment.gpus": "no GPU is given to sandboxes",
  "environment.gpu_types": "no GPU is given to sandboxes",
  "environment.tpu": "no TPU is given to sandboxes",
  "environment.mcp_servers": "MCP servers are not started; the agent gets the sandbox's shell tools only",
  "environment.skills_dir": "skills are not installed for the agent",
  "environment.healthcheck": "the health check is not run before the agent starts",
  "environment.allowed_hosts": "sandboxes have no network, so no host is allowed",
  "agent.allowed_hosts": "sandboxes have no network, so no host is allowed",
  "verifier.allowed_hosts": "sandboxes have no network, so no host is allowed",
  "agent.user": "the agent runs as root in the task's sandbox",
  "verifier.user": "the verifier runs as root in the task's sandbox",
  "verifier.environment_mode": "the verifier runs in the agent's sandbox (shared)",
  "verifier.environment": "the verifier runs in the agent's sandbox; a separate verifier image is not built",
  "verifier.collect": "no files are collected from the sandbox besides /logs/verifier's reward",
  artifacts: "artifacts are not copied out of the sandbox",
};

const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i;

/** Harbor's memory/storage strings ("2G", "512M", "10240") in megabytes. */
export function sizeToMb(s: string): number | null {
  const m = SIZE.exec(s);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? "").toLowerCase();
  const factor = unit === "k" ? 1 / 1024 : unit === "g" ? 1024 : unit === "t" ? 1024 * 1024 : unit === "m" ? 1 : 1 / (1024 * 1024);
  return Math.round(n * factor);
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads task.toml (schema 1.0 to 1.3). Wrong types are errors at the field; unknown fields and
 * fields this tool reads but cannot honour are warnings at the field, never silently dropped.
 */
export function parseTaskConfig(file: string, text: string): { config: HarborTaskConfig | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const at: At = (table, key, message, severity, arrayIndex) =>
    problems.push({
      file,
      ...tomlSpan(text, table, key, arrayIndex),
      path: [...table, ...(key ? [key] : [])].join("."),
      message,
      severity,
    });
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (e) {
    problems.push(tomlSyntaxProblem(file, e));
    return { config: null, problems };
  }
  const r = tomlReader(raw, at);
  const { table, num, str, envOf } = r;
  const versionRaw = raw.schema_version ?? raw.version ?? "1.0";
  const schemaVersion = String(versionRaw);
  if (!/^1\.[0-3]$/.test(schemaVersion))
    at(
      [],
      raw.schema_version !== undefined ? "schema_version" : "version",
      `schema ${schemaVersion} is newer than 1.3, the last one read here: fields added since are warned about`,
      "warning",
    );
  const legacy = schemaVersion === "1.0";
  const { memoryMb, storageMb, cpus, networkMode, workdir } = environmentOf(r, at);
  const steps = parseSteps(raw.steps, at);
  if (
    raw.multi_step_reward_strategy !== undefined &&
    raw.multi_step_reward_strategy !== "mean" &&
    raw.multi_step_reward_strategy !== "final"
  )
    at([], "multi_step_reward_strategy", `must be "mean" or "final", got ${JSON.stringify(raw.multi_step_reward_strategy)}`, "error");
  const taskTable = table("task");
  const metadata = table("metadata");
  const config: HarborTaskConfig = {
    schemaVersion,
    raw,
    ...(typeof taskTable.name === "string" ? { name: taskTable.name } : {}),
    metadata,
    agentTimeoutSec: num("agent", "timeout_sec", legacy ? 600 : null),
    verifierTimeoutSec: num("verifier", "timeout_sec", 600) ?? 600,
    buildTimeoutSec: num("environment", "build_timeout_sec", 600) ?? 600,
    ...(str("environment", "docker_image") ? { dockerImage: str("environment", "docker_image") as string } : {}),
    cpus,
    memoryMb,
    storageMb,
    ...(workdir?.startsWith("/") ? { workdir } : {}),
    networkMode,
    env: envOf("environment"),
    verifierEnv: envOf("verifier"),
    solutionEnv: envOf("solution"),
    steps,
    multiStepRewardStrategy: raw.multi_step_reward_strategy === "final" ? "final" : "mean",
  };
  if (config.dockerImage)
    at(
      ["environment"],
      "docker_image",
      `the prebuilt image ${config.dockerImage} is not pulled (no registry is reached): the task's environment/Dockerfile is built instead, as Harbor's --force-build does`,
      "warning",
    );
  return { config, problems };
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

interface TomlReader {
  table(name: string): Record<string, unknown>;
  num(tableName: string, key: string, fallback: number | null): number | null;
  str(tableName: string, key: string): string | undefined;
  envOf(tableName: string): Record<string, string>;
}

/** Typed reads of the parsed file's tables, each wrong type a problem; unknown and unsupported fields are warned about here, once. */
function tomlReader(raw: Record<string, unknown>, at: At): TomlReader {
  const table = (name: string): Record<string, unknown> => {
    const v = raw[name];
    if (v === undefined) return {};
    if (isTable(v)) return v;
    at([], name, `[${name}] must be a table`, "error");
    return {};
  };
  const num = (tableName: string, key: string, fallback: number | null): number | null => {
    const v = table(tableName)[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
    at([tableName], key, `must be a non-negative number, got ${JSON.stringify(v)}`, "error");
    return fallback;
  };
  const str = (tableName: string, key: string): string | undefined => {
    const v = table(tableName)[key];
    if (v === undefined) return undefined;
    if (typeof v === "string") return v;
    at([tableName], key, `must be a string, got ${JSON.stringify(v)}`, "error");
    return undefined;
  };
  const envOf = (tableName: string): Record<string, string> => {
    const v = table(tableName).env;
    if (v === undefined) return {};
    if (!isTable(v)) {
      at([tableName], "env", 'must be a table of NAME = "value"', "error");
      return {};
    }
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string" || typeof x === "number" || typeof x === "boolean") out[k] = String(x);
      else at([tableName, "env"], k, "an environment value must be a string", "error");
    }
    return out;
  };
  warnUnknownFields(raw, table, at);
  return { table, num, str, envOf };
}

/** Fields Harbor's task.toml does not have, and those read but not supported here. */
function warnUnknownFields(raw: Record<string, unknown>, table: (name: string) => Record<string, unknown>, at: At): void {
  for (const [tableName, known] of Object.entries(KNOWN)) {
    const t = tableName === "" ? raw : table(tableName);
    for (const key of Object.keys(t)) {
      const where = tableName === "" ? [] : [tableName];
      const dotted = tableName === "" ? key : `${tableName}.${key}`;
      if (!known.has(key)) at(where, key, `unknown field '${key}' for Harbor's task.toml: ignored`, "warning");
      else if (UNSUPPORTED[dotted]) at(where, key, `read but not supported here: ${UNSUPPORTED[dotted]}`, "warning");
    }
  }
}

/** The [environment] table's limits, network and workdir, with Harbor's defaults. */
function environmentOf(r: TomlReader, at: At) {
  const { table, num, str } = r;
  const env = table("environment");
  let memoryMb = 2048;
  if (typeof env.memory_mb === "number") memoryMb = env.memory_mb;
  else if (env.memory !== undefined) {
    const mb = typeof env.memory === "string" ? sizeToMb(env.memory) : typeof env.memory === "number" ? env.memory : null;
    if (mb === null) at(["environment"], "memory", `not a size: ${JSON.stringify(env.memory)} (Harbor writes "2G")`, "error");
    else memoryMb = mb;
  }
  let storageMb = 10240;
  if (typeof env.storage_mb === "number") storageMb = env.storage_mb;
  else if (typeof env.storage === "string") storageMb = sizeToMb(env.storage) ?? storageMb;
  const cpus = num("environment", "cpus", 1) ?? 1;
  const gpus = env.gpus;
  if (typeof gpus === "number" && gpus > 0) at(["environment"], "gpus", `the task asks for ${gpus} GPU(s); sandboxes have none`, "warning");
  if (env.os === "windows") at(["environment"], "os", "Windows containers are not supported: the task cannot run here", "error");
  let networkMode: HarborTaskConfig["networkMode"] = "public";
  const nm = str("environment", "network_mode");
  if (nm === "no-network" || nm === "allowlist" || nm === "public") networkMode = nm;
  else if (nm !== undefined) at(["environment"], "network_mode", `must be public, no-network or allowlist, got '${nm}'`, "error");
  if (env.allow_internet === false) networkMode = "no-network";
  const workdir = str("environment", "workdir");
  if (workdir !== undefined && !workdir.startsWith("/")) at(["environment"], "workdir", "must be an absolute path", "error");
  return { memoryMb, storageMb, cpus, networkMode, workdir };
}

type At = (table: string[], key: string | undefined, message: string, severity: Problem["severity"], arrayIndex?: number) => void;

/**
 * `[[steps]]` as Harbor's StepConfig reads them: a unique name each, `min_reward` a number or a
 * table of numbers, `[steps.agent]` / `[steps.verifier]` timeouts and the verifier's env. A
 * step's problems are placed at its `[[steps]]` header (the TOML positions name no array index).
 */
function parseSteps(value: unknown, atFile: At): HarborStepConfig[] {
  const steps: HarborStepConfig[] = [];
  if (value === undefined) return steps;
  if (!Array.isArray(value)) {
    atFile([], "steps", "[[steps]] must be an array of tables", "error");
    return steps;
  }
  const seen = new Set<string>();
  value.forEach((s, i) => {
    const where = `step ${i + 1}`;
    const at: At = (table, key, message, severity) => atFile(table, key, message, severity, i);
    if (!isTable(s) || typeof s.name !== "string" || s.name.trim() === "") {
      at(["steps"], undefined, `${where} needs a name (the folder steps/<name>/ holds its instruction.md)`, "error");
      return;
    }
    const label = `step '${s.name}'`;
    // Harbor reads steps/<name>/: any one folder name will do, nothing that climbs out or down.
    if (/[/\\\0]/.test(s.name) || s.name === "." || s.name === "..")
      at(["steps"], "name", `${label}: a step name is one folder name under steps/ (no / or \\, not . or ..)`, "error");
    if (seen.has(s.name)) at(["steps"], "name", `${label} is named twice: step names must be unique`, "error");
    seen.add(s.name);
    for (const key of Object.keys(s)) {
      if (!STEP_KNOWN.has(key)) at(["steps"], key, `${label}: unknown field '${key}' for a Harbor step: ignored`, "warning");
      else if (STEP_UNSUPPORTED[key]) at(["steps"], key, `${label}: read but not supported here: ${STEP_UNSUPPORTED[key]}`, "warning");
    }
    const phase = (name: "agent" | "verifier"): Record<string, unknown> => {
      const v = s[name];
      if (v === undefined) return {};
      if (isTable(v)) {
        for (const key of Object.keys(v))
          if (STEP_UNSUPPORTED[`${name}.${key}`])
            at(["steps", name], key, `${label}: read but not supported here: ${STEP_UNSUPPORTED[`${name}.${key}`]}`, "warning");
        return v;
      }
      at(["steps"], name, `${label}: [steps.${name}] must be a table`, "error");
      return {};
    };
    const agent = phase("agent");
    const verifier = phase("verifier");
    const timeout = (t: Record<string, unknown>, table: string): number | undefined => {
      const v = t.timeout_sec;
      if (v === undefined || v === null) return undefined;
      if (typeof v === "number" && Number.isFinite(v) && v > 0) return v;
      at(["steps", table], "timeout_sec", `${label}: timeout_sec must be a positive number, got ${JSON.stringify(v)}`, "error");
      return undefined;
    };
    let minReward: HarborStepConfig["minReward"];
    const mr = s.min_reward;
    if (typeof mr === "number") minReward = mr;
    else if (isTable(mr) && Object.values(mr).every((x) => typeof x === "number"))
      minReward = Object.fromEntries(Object.entries(mr)) as Record<string, number>;
    else if (mr !== undefined && mr !== null)
      at(
        ["steps"],
        "min_reward",
        `${label}: min_reward must be a number or a table of reward key = number, got ${JSON.stringify(mr)}`,
        "error",
      );
    const verifierEnv: Record<string, string> = {};
    if (verifier.env !== undefined) {
      if (!isTable(verifier.env)) at(["steps", "verifier"], "env", `${label}: env must be a table of NAME = "value"`, "error");
      else
        for (const [k, x] of Object.entries(verifier.env)) {
          if (typeof x === "string" || typeof x === "number" || typeof x === "boolean") verifierEnv[k] = String(x);
          else at(["steps", "verifier", "env"], k, `${label}: an environment value must be a string`, "error");
        }
    }
    const agentTimeoutSec = timeout(agent, "agent");
    const verifierTimeoutSec = timeout(verifier, "verifier");
    steps.push({
      name: s.name,
      ...(minReward !== undefined ? { minReward } : {}),
      ...(agentTimeoutSec !== undefined ? { agentTimeoutSec } : {}),
      ...(verifierTimeoutSec !== undefined ? { verifierTimeoutSec } : {}),
      verifierEnv,
    });
  });
  return steps;
}
