import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { hashEnvironment } from "../util/hash";
import type { Environment, LoadResult } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { type Problem, START_OF_FILE } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, readSourceText } from "../util/read-source";
import { Manifest } from "../schema/manifest";
import { dockerfileWorkdir, standInTable, substituteBases, userStandInsFile } from "../sandbox/image/base-images";
import { loadHarborSteps } from "./load-steps";
import { oracleCommand } from "./oracle-command";
import type { TaskStages } from "../model/task-stages";
import { fileMapOf, readTree } from "../util/read-tree";
import type { TreeFile } from "../model/harbor";
import { parseTaskConfig } from "./task-config";
import { tomlSpan } from "./toml-position";
import type { HarborImage } from "../model/harbor";

export const HARBOR_CONFIG = "task.toml";

/** The entries of a Harbor task folder that make the task; anything else is carried, not run. */
export const HARBOR_PARTS: ReadonlySet<string> = new Set([HARBOR_CONFIG, "instruction.md", "environment", "solution", "tests", "steps"]);

/** The tools a Harbor task's agent gets: the sandbox's shell and files (Harbor's agents work in a terminal). */
export const HARBOR_TOOLS = ["bash", "read_file", "write_file", "edit_file", "list_files", "submit"];

/** When task.toml gives no agent timeout (schema 1.1+: none), a rollout still ends. */
const NO_TIMEOUT_FALLBACK_SEC = 3600;

export function isHarborTask(dir: string): boolean {
  return existsSync(path.join(dir, HARBOR_CONFIG)) && !existsSync(path.join(dir, "environment.yaml"));
}

/** The Harbor task folders directly inside `dir`, sorted; empty when it holds none. */
export function harborTaskDirs(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory() && isHarborTask(d));
}

/** Folders as given, each folder of Harbor tasks replaced by its task folders (every task is an environment of its own image). */
export function expandHarborFolders(dirs: readonly string[]): string[] {
  return dirs.flatMap((d) => {
    const abs = path.resolve(d);
    if (existsSync(path.join(abs, "environment.yaml")) || isHarborTask(abs)) return [d];
    const tasks = harborTaskDirs(abs);
    return tasks.length > 0 ? tasks : [d];
  });
}

/** A task folder's name as an environment name and a docker repository: lower-case letters, digits, . _ - */
function slugOf(dir: string): string {
  const s = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "");
  return s || "task";
}

function lineOf(text: string, pattern: RegExp): number {
  const i = text.split("\n").findIndex((l) => pattern.test(l));
  return i < 0 ? 1 : i + 1;
}

/**
 * Loads one Harbor task folder (task.toml, instruction.md, environment/, solution/, tests/) as
 * an environment with one task: instruction.md is the prompt, environment/Dockerfile is built
 * (base images replaced by local stand-ins, each named in a warning) into the task's image,
 * solution/solve.sh is the oracle, tests/test.sh the verifier. Nothing in the folder is written.
 */
export function loadHarborTask(dirGiven: string): LoadResult {
  const dir = path.resolve(dirGiven);
  const configPath = path.join(dir, HARBOR_CONFIG);
  const problems: Problem[] = [];
  const fileProblem = (file: string, message: string, severity: Problem["severity"] = "error", line = 1): Problem => ({
    file,
    ...START_OF_FILE,
    line,
    endLine: line,
    path: "",
    message,
    severity,
  });
  const read = readSourceText(configPath, DEFAULT_LOAD_LIMITS.maxManifestBytes);
  if (!read.ok) return { env: null, problems: [{ file: configPath, ...read.span, path: "", message: read.message, severity: "error" }] };
  const parsed = parseTaskConfig(configPath, read.text);
  for (const p of parsed.problems) problems.push(p);
  const config = parsed.config;
  if (!config) return { env: null, problems };

  const instructionPath = path.join(dir, "instruction.md");
  const instruction = existsSync(instructionPath) ? readSourceText(instructionPath, DEFAULT_LOAD_LIMITS.maxPromptBytes) : null;
  const multiStep = config.steps.length > 0;
  // A multi-step task's prompts are its steps' instruction.md (Harbor ignores a top-level one).
  if (!multiStep && !instruction)
    problems.push(fileProblem(instructionPath, "a Harbor task needs instruction.md: it is the agent's prompt"));
  else if (!multiStep && instruction && !instruction.ok) problems.push(fileProblem(instructionPath, instruction.message));

  const contextDir = path.join(dir, "environment");
  const dockerfilePath = path.join(contextDir, "Dockerfile");
  if (!existsSync(dockerfilePath)) {
    const compose = existsSync(path.join(contextDir, "docker-compose.yaml"));
    problems.push(
      fileProblem(
        dockerfilePath,
        compose
          ? "environment/ has a docker-compose.yaml but no Dockerfile: only a Dockerfile-built main container is supported"
          : "a Harbor task needs environment/Dockerfile (its sandbox image)",
      ),
    );
  } else if (existsSync(path.join(contextDir, "docker-compose.yaml")))
    problems.push(
      fileProblem(
        path.join(contextDir, "docker-compose.yaml"),
        "not merged: only the main container, built from environment/Dockerfile, runs",
        "warning",
      ),
    );
  const testsDir = path.join(dir, "tests");
  if (!multiStep && !existsSync(path.join(testsDir, "test.sh")))
    problems.push(fileProblem(path.join(testsDir, "test.sh"), "a Harbor task needs tests/test.sh (its verifier)"));
  const solutionDir = path.join(dir, "solution");
  const hasSolution = existsSync(path.join(solutionDir, "solve.sh"));
  if (!hasSolution && !multiStep)
    problems.push(
      fileProblem(
        path.join(solutionDir, "solve.sh"),
        "no solution/solve.sh: the oracle has nothing to run, so validation cannot pass",
        "warning",
      ),
    );

  let context = new Map<string, TreeFile>();
  let tests = new Map<string, TreeFile>();
  let solution = new Map<string, TreeFile>();
  try {
    if (existsSync(contextDir)) context = readTree(contextDir, dir);
    if (existsSync(testsDir)) tests = readTree(testsDir, dir);
    if (hasSolution) solution = readTree(solutionDir, dir);
  } catch (e) {
    problems.push(fileProblem(dir, (e as Error).message));
  }
  if (problems.some((p) => p.severity === "error")) return { env: null, problems };
  const others = readdirSync(dir).filter((n) => !HARBOR_PARTS.has(n));
  if (others.length > 0)
    problems.push(
      fileProblem(
        path.join(dir, others[0] ?? ""),
        `not part of Harbor's task format, so not used by a run (import and export carry it): ${others.sort().join(", ")}`,
        "warning",
      ),
    );

  let table: ReturnType<typeof standInTable>;
  try {
    table = standInTable();
  } catch (e) {
    problems.push(fileProblem(userStandInsFile(), (e as Error).message));
    return { env: null, problems };
  }
  const original = context.get("Dockerfile")?.bytes.toString("utf8") ?? "";
  const sub = substituteBases(original, table);
  for (const s of sub.substitutions)
    problems.push(
      fileProblem(
        dockerfilePath,
        `base image ${s.image} is not pulled (no registry is reached): built on the local stand-in ${s.tag}: ${s.standIn.note} (the table: ${userStandInsFile()} and the shipped entries)`,
        "warning",
        lineOf(original, new RegExp(`^\\s*FROM\\s.*${s.image.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i")),
      ),
    );
  for (const u of sub.unknown)
    problems.push(
      fileProblem(
        dockerfilePath,
        `base image ${u} has no local stand-in: the build works only if the engine already has it (docker load), else add an entry to ${userStandInsFile()}`,
        "warning",
        lineOf(original, new RegExp(`^\\s*FROM\\s.*${u.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i")),
      ),
    );
  if (config.networkMode !== "no-network" && /network_mode/.test(read.text))
    problems.push(
      fileProblem(
        configPath,
        "sandboxes have no network: a task that needs it at run time fails (the verifier's uv/pytest fetch is shimmed offline)",
        "warning",
      ),
    );
  const workdir = config.workdir ?? dockerfileWorkdir(original);
  if (!workdir || workdir === "/")
    problems.push(
      fileProblem(dockerfilePath, "the Dockerfile sets no WORKDIR (or WORKDIR /): the sandbox's workdir is /root instead of /", "warning"),
    );

  const name = slugOf(dir);
  const h = createHash("sha256").update(sub.text);
  for (const [p, f] of context) if (p !== "Dockerfile") h.update(`${p}\0${f.executable ? 1 : 0}\0${f.bytes.length}\0`).update(f.bytes);
  const image: HarborImage = {
    tag: `rlenv/harbor-${name}:${h.digest("hex").slice(0, 12)}`,
    contextDir,
    dockerfilePath,
    dockerfile: sub.text,
    context,
    substitutions: sub.substitutions,
    buildTimeoutSec: config.buildTimeoutSec,
  };
  const agentTimeout = config.agentTimeoutSec ?? NO_TIMEOUT_FALLBACK_SEC;
  // [environment].env is the container's environment in Harbor (${VAR} taken from the host): here the oracle's and the verifier's.
  const containerEnv = Object.fromEntries(
    Object.entries(config.env).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, name: string) => process.env[name] ?? "")]),
  );
  if (Object.keys(containerEnv).length > 0)
    problems.push({
      file: configPath,
      ...tomlSpan(read.text, ["environment"], "env"),
      path: "environment.env",
      message: "set for the oracle's solve.sh and the verifier's test.sh; the agent's own commands do not get it",
      severity: "warning",
    });
  const verifierEnv = { ...containerEnv, ...config.verifierEnv };
  let stages: TaskStages | null = null;
  if (multiStep) {
    const loaded = loadHarborSteps({
      dir,
      configPath,
      configText: read.text,
      config,
      sharedTests: tests,
      sharedSolution: solution,
      containerEnv,
    });
    problems.push(...loaded.problems);
    if (!loaded.stages) return { env: null, problems };
    stages = loaded.stages;
  }
  // Each step has its own agent timeout; the rollout's deadline is their sum, a tool call's the longest.
  const stepTimeouts = config.steps.map((s) => s.agentTimeoutSec ?? agentTimeout);
  const rolloutTimeout = stepTimeouts.length > 0 ? stepTimeouts.reduce((a, b) => a + b, 0) : agentTimeout;
  const stepTimeout = stepTimeouts.length > 0 ? Math.max(...stepTimeouts) : agentTimeout;
  const first = stages?.list[0];
  const manifest = Manifest.parse({
    name,
    domain: "code",
    description: typeof config.raw.task === "object" ? String((config.raw.task as { description?: unknown }).description ?? "") : "",
    version: config.schemaVersion,
    sandbox: {
      image: image.tag,
      workdir: workdir && workdir !== "/" ? workdir : "/root",
      user: "0:0",
      rootfs: "writable",
      // Harbor's containers keep Docker's default capabilities (its tasks run apt-get and chown as root).
      capabilities: "default",
      reset: "recreate",
      // The task's disk size bounds each file it writes and the sandbox's disk quota (sandbox.limits.disk, where the backend enforces one).
      limits: {
        cpus: config.cpus,
        memory: `${config.memoryMb}m`,
        pids: 4096,
        tmpfs: "1g",
        file_size: `${config.storageMb}m`,
        disk: `${config.storageMb}m`,
      },
      timeouts: { step: stepTimeout, rollout: rolloutTimeout },
    },
    tasks: HARBOR_CONFIG,
    tools: HARBOR_TOOLS,
    max_turns: 200,
    reward: [
      {
        type: "harbor",
        name: "reward",
        timeout: config.verifierTimeoutSec,
        ...(Object.keys(verifierEnv).length > 0 ? { env: verifierEnv } : {}),
      },
    ],
    // Harbor's tests read what the agent installed or left running: judged in its sandbox, after the clean slate.
    judge: { sandbox: "agent" },
    metadata: { harbor: { schema_version: config.schemaVersion, ...(config.name ? { name: config.name } : {}) } },
  });
  const task: LoadedTask = first
    ? {
        id: name,
        prompt: first.prompt,
        ...(first.tests ? { tests: first.tests } : {}),
        ...(first.solution ? { solution: first.solution } : {}),
        ...(first.reward ? { reward: first.reward } : {}),
        ...(Object.keys(config.metadata).length > 0 ? { metadata: config.metadata } : {}),
        source: { file: path.join(dir, "steps", first.name, "instruction.md"), line: 1, index: 0 },
        ...(stages ? { stages } : {}),
      }
    : {
        id: name,
        prompt: instruction?.ok ? instruction.text : "",
        tests: { files: fileMapOf(tests) },
        ...(hasSolution ? { solution: { commands: [oracleCommand(solution, { ...containerEnv, ...config.solutionEnv })] } } : {}),
        ...(Object.keys(config.metadata).length > 0 ? { metadata: config.metadata } : {}),
        source: { file: instructionPath, line: 1, index: 0 },
      };
  const env: Environment = {
    dir,
    manifestPath: configPath,
    manifest,
    tasks: [task],
    prompts: { system: "", user: "{{task.prompt}}" },
    builtinTools: [...HARBOR_TOOLS],
    customTools: [],
    hash: hashEnvironment(dir),
    paths: { tasks: configPath },
    harbor: { taskDir: dir, config, image },
  };
  return { env, problems };
}
