import type * as vscode from "vscode";
import type { LiveRollouts } from "./debug/live-rollouts";
import type { EnvironmentIndex } from "./environments/index";
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
}
