import { existsSync } from "node:fs";
import path from "node:path";
import type { TreeFile } from "../model/harbor";
import type { Problem } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, readSourceText, type SourceRead } from "../util/read-source";
import { readTree } from "../util/read-tree";
import { fileProblem } from "./file-problem";

/** The parts of a Harbor task folder a run reads: where they are, and the files of environment/, tests/ and solution/. */
export interface HarborParts {
  instructionPath: string;
  /** Null when the folder has no instruction.md. */
  instruction: SourceRead | null;
  contextDir: string;
  dockerfilePath: string;
  hasSolution: boolean;
  context: Map<string, TreeFile>;
  tests: Map<string, TreeFile>;
  solution: Map<string, TreeFile>;
}

/**
 * Finds the parts of the task folder `dir`, each missing one a problem (an error where the task
 * cannot run without it), and reads the files of those present.
 */
export function readHarborParts(dir: string, multiStep: boolean, problems: Problem[]): HarborParts {
  const instructionPath = path.join(dir, "instruction.md");
  const instruction = readInstruction(instructionPath, multiStep, problems);
  const contextDir = path.join(dir, "environment");
  const dockerfilePath = path.join(contextDir, "Dockerfile");
  checkEnvironmentFolder(contextDir, dockerfilePath, problems);
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
  return { instructionPath, instruction, contextDir, dockerfilePath, hasSolution, context, tests, solution };
}

/** instruction.md as read (null when absent); missing or unreadable, an error for a single-step task. */
function readInstruction(instructionPath: string, multiStep: boolean, problems: Problem[]): SourceRead | null {
  const instruction = existsSync(instructionPath) ? readSourceText(instructionPath, DEFAULT_LOAD_LIMITS.maxPromptBytes) : null;
  // A multi-step task's prompts are its steps' instruction.md (Harbor ignores a top-level one).
  if (!multiStep && !instruction)
    problems.push(fileProblem(instructionPath, "a Harbor task needs instruction.md: it is the agent's prompt"));
  else if (!multiStep && instruction && !instruction.ok) problems.push(fileProblem(instructionPath, instruction.message));
  return instruction;
}

/** environment/ must hold a Dockerfile; a docker-compose.yaml beside it is not merged. */
function checkEnvironmentFolder(contextDir: string, dockerfilePath: string, problems: Problem[]): void {
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
}
