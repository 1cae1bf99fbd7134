import type * as vscode from "vscode";
import type { LiveRollouts } from "./debug/live-rollouts";
import type { EnvironmentIndex } from "./environments/index";
import type { TaskValidation } from "./rollouts/outcome";
import type { ResultsStore } from "./rollouts/results";
import type { RunsTree } from "./runs/tree";
import type { Settings } from "./settings/settings";

/** The one object the features share; built once in start.ts, disposed with the extension. */
export interface ExtensionCtx {
  extension: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  settings: Settings;
  environments: EnvironmentIndex;
  results: ResultsStore;
  runs: RunsTree;
  /** Rollouts under the debugger (or played by hand) whose sandbox is live: the sandbox terminal and files reach them. */
  live: LiveRollouts;
  /** The Test Explorer's door for runs started elsewhere (a Validate from the CodeLens); absent until it is built. */
  testRuns?: TestRunsBridge;
}

/** A validation started outside the Test Explorer, reported there as a run of its own. */
export interface ExternalTestRun {
  /** Each task's verdict, then the run ends. */
  validated(validations: readonly TaskValidation[]): void;
  /** The validation threw: the tests error (or are skipped when it was cancelled), then the run ends. */
  failed(message: string, cancelled: boolean): void;
}

export interface TestRunsBridge {
  /** Starts a run for the tasks (every task when undefined) of the environment at `envDir`. */
  beginValidation(envDir: string, taskIds: readonly string[] | undefined): ExternalTestRun;
}
