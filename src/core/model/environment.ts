import type { Manifest } from "../schema/manifest";
import type { Task } from "../schema/task";
import type { CustomTool } from "../schema/tool";
import type { HarborInfo } from "./harbor";
import type { Problem } from "./problem";
import type { TaskStages } from "./task-stages";

/** A loaded, validated environment: everything a rollout needs, paths resolved. */
export interface Environment {
  dir: string;
  manifestPath: string;
  manifest: Manifest;
  tasks: LoadedTask[];
  /** Prompt templates, file contents already read. */
  prompts: { system: string; user: string };
  builtinTools: string[];
  customTools: CustomTool[];
  /** Content hash of the folder, recorded in every trajectory. */
  hash: string;
  /** Absolute path of the Dockerfile when the sandbox is built, of documents/assets when given. */
  paths: { build?: string; documents?: string; assets?: string; tasks: string };
  /** Set when the folder is a Harbor task (task.toml) loaded as is: its image, tests and config. */
  harbor?: HarborInfo;
}

export interface LoadResult {
  /** Null when the manifest itself cannot be used; otherwise holds every task that loaded. */
  env: Environment | null;
  problems: Problem[];
}

/** A validated task and where it came from, so editors can point at it. */
export interface LoadedTask extends Task {
  source: { file: string; line: number; index: number };
  /** A task played as stages in one sandbox (Harbor's [[steps]]); the task's own prompt, tests and solution are the first stage's. */
  stages?: TaskStages;
}
