import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Problem } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, readSourceText } from "../util/read-source";
import type { TaskStage, TaskStages } from "../model/task-stages";
import { oracleCommand } from "./oracle-command";
import { fileMapOf, readTree } from "../util/read-tree";
import type { TreeFile } from "../model/harbor";
import type { HarborTaskConfig } from "../model/harbor";
import { tomlSpan } from "./toml-position";

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

export interface HarborStepsOptions {
  dir: string;
  configPath: string;
  configText: string;
  config: HarborTaskConfig;
  /** The task's top-level tests/ and solution/ (empty maps when absent): a step's own files override them. */
  sharedTests: Map<string, TreeFile>;
  sharedSolution: Map<string, TreeFile>;
  /** `[environment].env` resolved, under `[solution].env` for the oracle and `[verifier].env` for the verifier. */
  containerEnv: Record<string, string>;
}

/**
 * A multi-step task's `[[steps]]` as stages, read as Harbor's MultiStepTrial reads them:
 * `steps/<name>/instruction.md` is the step's prompt; its tests are the top-level tests/ with
 * `steps/<name>/tests/` over them (the step's test.sh, else the shared one); its oracle is
 * `steps/<name>/solution/solve.sh` when that folder exists, else the top-level solution;
 * `steps/<name>/workdir/` is copied into the workdir before the step and its `setup.sh` run
 * there; `[steps.verifier]` timeout and env override the task's.
 */
export function loadHarborSteps(o: HarborStepsOptions): { stages: TaskStages | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const { config, dir } = o;
  const list: TaskStage[] = [];
  config.steps.forEach((step, i) => {
    const stepDir = path.join(dir, "steps", step.name);
    const place = tomlSpan(o.configText, ["steps"], "name", step.entry ?? i);
    const problem = (message: string, severity: Problem["severity"] = "error") =>
      problems.push({ file: o.configPath, ...place, path: `steps.${step.name}`, message: `step '${step.name}': ${message}`, severity });
    if (!isDir(stepDir)) {
      problem(`steps/${step.name}/ is missing: it holds the step's instruction.md (and its tests/, solution/, workdir/)`);
      return;
    }
    const instructionPath = path.join(stepDir, "instruction.md");
    const instruction = existsSync(instructionPath) ? readSourceText(instructionPath, DEFAULT_LOAD_LIMITS.maxPromptBytes) : null;
    if (!instruction) {
      problem(`steps/${step.name}/instruction.md is missing: it is the step's prompt`);
      return;
    }
    if (!instruction.ok) {
      problems.push({ file: instructionPath, ...instruction.span, path: "", message: instruction.message, severity: "error" });
      return;
    }
    let tests = new Map(o.sharedTests);
    let solution: Map<string, TreeFile> | null = o.sharedSolution.has("solve.sh") ? o.sharedSolution : null;
    let workdir = new Map<string, TreeFile>();
    try {
      if (isDir(path.join(stepDir, "tests"))) tests = new Map([...tests, ...readTree(path.join(stepDir, "tests"), dir)]);
      if (isDir(path.join(stepDir, "solution"))) {
        // Harbor's oracle takes the step's solution/ whenever the folder exists, and fails without its solve.sh.
        solution = readTree(path.join(stepDir, "solution"), dir);
        if (!solution.has("solve.sh")) problem(`steps/${step.name}/solution/ has no solve.sh: the oracle cannot play this step`);
      }
      if (isDir(path.join(stepDir, "workdir"))) workdir = readTree(path.join(stepDir, "workdir"), dir);
    } catch (e) {
      problem((e as Error).message);
      return;
    }
    if (!tests.has("test.sh")) problem(`neither steps/${step.name}/tests/test.sh nor tests/test.sh exists: the step has no verifier`);
    if (!solution) problem("no steps/<name>/solution/solve.sh and no solution/solve.sh: the oracle has nothing to play here", "warning");
    const verifierEnv = { ...o.containerEnv, ...config.verifierEnv, ...step.verifierEnv };
    list.push({
      name: step.name,
      prompt: instruction.text,
      tests: { files: fileMapOf(tests) },
      ...(solution?.has("solve.sh")
        ? { solution: { commands: [oracleCommand(solution, { ...o.containerEnv, ...config.solutionEnv })] } }
        : {}),
      reward: [
        {
          type: "harbor",
          name: "reward",
          weight: 1,
          timeout: step.verifierTimeoutSec ?? config.verifierTimeoutSec,
          ...(Object.keys(verifierEnv).length > 0 ? { env: verifierEnv } : {}),
        },
      ],
      ...(workdir.size > 0 ? { files: fileMapOf(workdir) } : {}),
      ...(workdir.has("setup.sh") ? { setup: "bash ./setup.sh" } : {}),
      ...(step.minReward !== undefined ? { minReward: step.minReward } : {}),
      ...((step.agentTimeoutSec ?? config.agentTimeoutSec) !== null
        ? { agentTimeoutSec: step.agentTimeoutSec ?? (config.agentTimeoutSec as number) }
        : {}),
    });
  });
  if (problems.some((p) => p.severity === "error")) return { stages: null, problems };
  return { stages: { list, strategy: config.multiStepRewardStrategy }, problems };
}
