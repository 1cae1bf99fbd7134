import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Environment, LoadResult } from "../model/environment";
import type { HarborTaskConfig } from "../model/harbor";
import type { Problem } from "../model/problem";
import type { TaskStages } from "../model/task-stages";
import { Manifest } from "../schema/manifest";
import { hashEnvironment } from "../util/hash";
import { DEFAULT_LOAD_LIMITS, readSourceText } from "../util/read-source";
import { fileProblem } from "./file-problem";
import { harborImage, harborWorkdir, substituteHarborBases } from "./load-image";
import { readHarborParts } from "./load-parts";
import { containerEnvOf, warnNetwork } from "./load-runtime";
import { loadHarborSteps } from "./load-steps";
import { harborTaskEntry } from "./load-task-entry";
import { parseTaskConfig } from "./task-config";

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

/** Entries of the task folder that Harbor's format does not name: carried by import and export, a warning here. */
function warnUnknownEntries(dir: string, problems: Problem[]): void {
  const others = readdirSync(dir).filter((n) => !HARBOR_PARTS.has(n));
  if (others.length > 0)
    problems.push(
      fileProblem(
        path.join(dir, others[0] ?? ""),
        `not part of Harbor's task format, so not used by a run (import and export carry it): ${others.sort().join(", ")}`,
        "warning",
      ),
    );
}

/** What the manifest of a Harbor task takes from its folder beyond task.toml. */
interface ManifestInputs {
  name: string;
  config: HarborTaskConfig;
  imageTag: string;
  workdir: string | null;
  verifierEnv: Record<string, string>;
}

/** The manifest a Harbor task runs under: its image, limits and timeouts from task.toml, the harbor verifier as its reward. */
function harborManifest({ name, config, imageTag, workdir, verifierEnv }: ManifestInputs): Manifest {
  const agentTimeout = config.agentTimeoutSec ?? NO_TIMEOUT_FALLBACK_SEC;
  // Each step has its own agent timeout; the rollout's deadline is their sum, a tool call's the longest.
  const stepTimeouts = config.steps.map((s) => s.agentTimeoutSec ?? agentTimeout);
  const rolloutTimeout = stepTimeouts.length > 0 ? stepTimeouts.reduce((a, b) => a + b, 0) : agentTimeout;
  const stepTimeout = stepTimeouts.length > 0 ? Math.max(...stepTimeouts) : agentTimeout;
  return Manifest.parse({
    name,
    domain: "code",
    description: typeof config.raw.task === "object" ? String((config.raw.task as { description?: unknown }).description ?? "") : "",
    version: config.schemaVersion,
    sandbox: {
      image: imageTag,
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
  const read = readSourceText(configPath, DEFAULT_LOAD_LIMITS.maxManifestBytes);
  if (!read.ok) return { env: null, problems: [{ file: configPath, ...read.span, path: "", message: read.message, severity: "error" }] };
  const parsed = parseTaskConfig(configPath, read.text);
  for (const p of parsed.problems) problems.push(p);
  const config = parsed.config;
  if (!config) return { env: null, problems };

  const multiStep = config.steps.length > 0;
  const parts = readHarborParts(dir, multiStep, problems);
  if (problems.some((p) => p.severity === "error")) return { env: null, problems };
  warnUnknownEntries(dir, problems);

  const dockerfile = substituteHarborBases(parts, problems);
  if (!dockerfile) return { env: null, problems };
  warnNetwork(configPath, config, read.text, problems);
  const workdir = harborWorkdir(config, dockerfile, parts, problems);

  const name = slugOf(dir);
  const image = harborImage(name, config, dockerfile, parts);
  const containerEnv = containerEnvOf(configPath, config, read.text, problems);
  const verifierEnv = { ...containerEnv, ...config.verifierEnv };
  let stages: TaskStages | null = null;
  if (multiStep) {
    const loaded = loadHarborSteps({
      dir,
      configPath,
      configText: read.text,
      config,
      sharedTests: parts.tests,
      sharedSolution: parts.solution,
      containerEnv,
    });
    problems.push(...loaded.problems);
    if (!loaded.stages) return { env: null, problems };
    stages = loaded.stages;
  }
  const manifest = harborManifest({ name, config, imageTag: image.tag, workdir, verifierEnv });
  const task = harborTaskEntry(name, dir, config, parts, stages, containerEnv);
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
