import path from "node:path";
import type { LoadedTask } from "../model/environment";
import type { HarborTaskConfig } from "../model/harbor";
import type { TaskStages } from "../model/task-stages";
import { fileMapOf } from "../util/read-tree";
import type { HarborParts } from "./load-parts";
import { oracleCommand } from "./oracle-command";

/**
 * The one task of a Harbor task folder: a multi-step task starts as its first step (prompt,
 * tests, oracle, reward) and carries its stages; a single-step one is instruction.md with
 * tests/ as its verifier's files and solution/solve.sh as its oracle.
 */
export function harborTaskEntry(
  name: string,
  dir: string,
  config: HarborTaskConfig,
  parts: HarborParts,
  stages: TaskStages | null,
  containerEnv: Record<string, string>,
): LoadedTask {
  const first = stages?.list[0];
  return first
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
        prompt: parts.instruction?.ok ? parts.instruction.text : "",
        tests: { files: fileMapOf(parts.tests) },
        ...(parts.hasSolution
          ? { solution: { commands: [oracleCommand(parts.solution, { ...containerEnv, ...config.solutionEnv })] } }
          : {}),
        ...(Object.keys(config.metadata).length > 0 ? { metadata: config.metadata } : {}),
        source: { file: parts.instructionPath, line: 1, index: 0 },
      };
}
