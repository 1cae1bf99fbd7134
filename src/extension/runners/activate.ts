import * as vscode from "vscode";
import type { CommandSpec } from "../commands/table";
import { RunnerRegistry } from "./registry";
import { runnerCommands } from "./commands";
import { RunnersTree } from "./tree";

/**
 * Remote runners in the editor: the Runners view (health, GPUs, jobs with live progress),
 * Add Runner / Submit to Runner / Cancel / Pull Run (returned for the command table). Tokens stay in SecretStorage.
 */
export function activateRunners(
  extension: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  runsDir: () => vscode.Uri | undefined,
): { tree: RunnersTree; commands: CommandSpec[] } {
  const registry = new RunnerRegistry(extension.secrets);
  const tree = new RunnersTree(registry, log);
  extension.subscriptions.push(registry, tree, vscode.window.createTreeView("rlenv.runners", { treeDataProvider: tree }));
  void tree.refresh();
  return { tree, commands: runnerCommands(registry, tree, log, runsDir) };
}
