// Harbor's own task config model (src/harbor/models/task/config.py, pydantic, lax mode),
// written again for the tests: what `TaskConfig.model_validate_toml` accepts, and the files
// Harbor's task loader needs. Extra fields are ignored, as pydantic's default does.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const ORG_NAME = /^[a-zA-Z0-9_-][a-zA-Z0-9._-]*\/[a-zA-Z0-9_-][a-zA-Z0-9._-]*$/;
const NETWORK = ["public", "no-network", "allowlist"];

/** The validation errors pydantic would raise for task.toml's parsed fields; empty when Harbor accepts it. */
export function harborTaskConfigErrors(data: Obj): string[] {
  const errors: string[] = [];
  const cfg: Obj = { ...data };
  if ("version" in cfg) {
    if (!("schema_version" in cfg)) cfg.schema_version = cfg.version;
    delete cfg.version;
  }
  const str = (where: string, v: unknown, nullable = false) => {
    if (v === undefined || (nullable && v === null)) return;
    if (typeof v !== "string") errors.push(`${where}: Input should be a valid string`);
  };
  const float = (where: string, v: unknown, nullable = false) => {
    if (v === undefined || (nullable && v === null)) return;
    if (typeof v !== "number" || !Number.isFinite(v)) errors.push(`${where}: Input should be a valid number`);
  };
  const int = (where: string, v: unknown) => {
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isInteger(v)) errors.push(`${where}: Input should be a valid integer`);
  };
  const strDict = (where: string, v: unknown) => {
    if (v === undefined) return;
    if (!isObj(v)) errors.push(`${where}: Input should be a valid dictionary`);
    else for (const [k, x] of Object.entries(v)) str(`${where}.${k}`, x);
  };
  const strList = (where: string, v: unknown, nullable = false) => {
    if (v === undefined || (nullable && v === null)) return;
    if (!Array.isArray(v)) errors.push(`${where}: Input should be a valid list`);
    else for (const [i, x] of v.entries()) str(`${where}.${i}`, x);
  };
  const user = (where: string, v: unknown) => {
    if (v !== undefined && v !== null && typeof v !== "string" && !Number.isInteger(v)) errors.push(`${where}: str | int | None`);
  };
  const network = (section: string, t: Obj) => {
    const mode = t.network_mode;
    if (mode !== undefined && mode !== null && !NETWORK.includes(String(mode))) errors.push(`${section}.network_mode: not a NetworkMode`);
    strList(`${section}.allowed_hosts`, t.allowed_hosts);
    const hosts = Array.isArray(t.allowed_hosts) ? t.allowed_hosts : [];
    if (hosts.length > 0 && mode !== undefined && mode !== null && mode !== "allowlist")
      errors.push(`${section}.allowed_hosts is only valid when ${section}.network_mode='allowlist'`);
    for (const h of hosts) if (/:\/\/|[/:]/.test(String(h))) errors.push(`${section}.allowed_hosts: ${h} is not a hostname`);
  };
  const table = (name: string): Obj | null => {
    const v = cfg[name];
    if (v === undefined || v === null) return {};
    if (!isObj(v)) {
      errors.push(`${name}: Input should be a valid dictionary`);
      return null;
    }
    return v;
  };
  str("schema_version", cfg.schema_version);
  str("source", cfg.source, true);
  if (cfg.metadata !== undefined && !isObj(cfg.metadata)) errors.push("metadata: Input should be a valid dictionary");
  const task = cfg.task;
  if (task !== undefined && task !== null) {
    if (!isObj(task)) errors.push("task: Input should be a valid dictionary");
    else {
      if (typeof task.name !== "string") errors.push("task.name: Field required");
      else if (!ORG_NAME.test(task.name) || task.name.includes("..")) errors.push("task.name: Package name must be in 'org/name' format");
      str("task.description", task.description);
      strList("task.keywords", task.keywords);
      if (task.authors !== undefined)
        if (!Array.isArray(task.authors)) errors.push("task.authors: Input should be a valid list");
        else
          task.authors.forEach((a, i) => {
            if (!isObj(a) || typeof a.name !== "string") errors.push(`task.authors.${i}.name: Field required`);
            else str(`task.authors.${i}.email`, a.email, true);
          });
    }
  }
  const verifier = table("verifier");
  if (verifier) {
    float("verifier.timeout_sec", verifier.timeout_sec);
    strDict("verifier.env", verifier.env);
    user("verifier.user", verifier.user);
    network("verifier", verifier);
  }
  const agent = table("agent");
  if (agent) {
    float("agent.timeout_sec", agent.timeout_sec, true);
    user("agent.user", agent.user);
    network("agent", agent);
  }
  const solution = table("solution");
  if (solution) strDict("solution.env", solution.env);
  const env = table("environment");
  if (env) {
    float("environment.build_timeout_sec", env.build_timeout_sec);
    str("environment.docker_image", env.docker_image, true);
    for (const k of ["cpus", "memory_mb", "storage_mb", "gpus"]) int(`environment.${k}`, env[k]);
    strList("environment.gpu_types", env.gpu_types, true);
    if (env.allow_internet !== undefined && typeof env.allow_internet !== "boolean") errors.push("environment.allow_internet: bool");
    network("environment", env);
    strDict("environment.env", env.env);
    str("environment.skills_dir", env.skills_dir, true);
    for (const k of ["memory", "storage"]) {
      const v = env[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string" || !/^\s*\d+(\.\d+)?\s*[GMK]\s*$/i.test(v)) errors.push(`environment.${k}: Invalid size format`);
    }
    if (env.mcp_servers !== undefined) {
      if (!Array.isArray(env.mcp_servers)) errors.push("environment.mcp_servers: Input should be a valid list");
      else
        env.mcp_servers.forEach((s, i) => {
          if (!isObj(s) || typeof s.name !== "string") {
            errors.push(`environment.mcp_servers.${i}.name: Field required`);
            return;
          }
          const transport = s.transport ?? "sse";
          if ((transport === "sse" || transport === "streamable-http") && !s.url)
            errors.push(`environment.mcp_servers.${i}: 'url' is required`);
          if (transport === "stdio" && !s.command) errors.push(`environment.mcp_servers.${i}: 'command' is required`);
        });
    }
    const hc = env.healthcheck;
    if (hc !== undefined && hc !== null && (!isObj(hc) || typeof hc.command !== "string"))
      errors.push("environment.healthcheck.command: Field required");
  }
  return errors;
}

/** Harbor's task folder check plus its config model: the errors Harbor would stop at. */
export function harborTaskErrors(dir: string): string[] {
  const errors: string[] = [];
  const toml = path.join(dir, "task.toml");
  if (!existsSync(toml)) return [`${dir}: no task.toml`];
  try {
    errors.push(...harborTaskConfigErrors(parse(readFileSync(toml, "utf8")) as Obj));
  } catch (e) {
    errors.push(`task.toml: ${(e as Error).message}`);
  }
  for (const f of ["instruction.md", "tests/test.sh"]) if (!existsSync(path.join(dir, f))) errors.push(`${f} is missing`);
  if (!existsSync(path.join(dir, "environment", "Dockerfile")) && !existsSync(path.join(dir, "environment", "docker-compose.yaml")))
    errors.push("environment/ has neither a Dockerfile nor a docker-compose.yaml");
  return errors;
}
