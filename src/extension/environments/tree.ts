import * as vscode from "vscode";
import type { LoadedTask } from "../../core/model/environment";
import type { ResultsStore } from "../rollouts/results";
import { describeTaskResult } from "./describe";
import type { EnvironmentEntry, EnvironmentIndex } from "./index";
import type { Target } from "./target";

export type EnvTreeNode =
  | { kind: "environment"; entry: EnvironmentEntry; target: Target }
  | { kind: "task"; entry: EnvironmentEntry; task: LoadedTask; target: Target };

/** The Environments view: environment → tasks, each task with its last validation and reward. */
export class EnvironmentsTree implements vscode.TreeDataProvider<EnvTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<EnvTreeNode | undefined>();
  /** Fires when the whole tree should be redrawn. */
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly index: EnvironmentIndex,
    private readonly results: ResultsStore,
  ) {
    this.subs = [
      this.changed,
      index.onDidChange(() => this.changed.fire(undefined)),
      results.onDidChange(() => this.changed.fire(undefined)),
    ];
  }

  async getChildren(node?: EnvTreeNode): Promise<EnvTreeNode[]> {
    if (!node) {
      await this.index.ready();
      return this.index.list().map((entry) => ({ kind: "environment", entry, target: { envDir: entry.dir } }));
    }
    if (node.kind === "task") return [];
    return (node.entry.result.env?.tasks ?? []).map((task) => ({
      kind: "task",
      entry: node.entry,
      task,
      target: { envDir: node.entry.dir, taskId: task.id },
    }));
  }

  getTreeItem(node: EnvTreeNode): vscode.TreeItem {
    if (node.kind === "environment") {
      const { entry } = node;
      const env = entry.result.env;
      const errors = entry.result.problems.filter((p) => p.severity === "error").length;
      // Small task sets open expanded; a 164-task benchmark would push the others out of view.
      const state =
        !env || env.tasks.length === 0
          ? vscode.TreeItemCollapsibleState.None
          : env.tasks.length <= 20
            ? vscode.TreeItemCollapsibleState.Expanded
            : vscode.TreeItemCollapsibleState.Collapsed;
      const item = new vscode.TreeItem(entry.label, state);
      item.id = `env:${entry.dir}`;
      item.contextValue = "environment";
      item.resourceUri = entry.manifest;
      const tasks = env ? `${env.tasks.length} task${env.tasks.length === 1 ? "" : "s"}` : "not loaded";
      item.description = [env?.manifest.domain, tasks, errors ? `${errors} problem${errors === 1 ? "" : "s"}` : ""]
        .filter(Boolean)
        .join(" · ");
      item.iconPath = new vscode.ThemeIcon(
        errors ? "error" : "beaker",
        errors ? new vscode.ThemeColor("problemsErrorIcon.foreground") : undefined,
      );
      item.tooltip = new vscode.MarkdownString(
        `**${entry.label}**\n\n${vscode.workspace.asRelativePath(entry.manifest)}${env?.manifest.description ? `\n\n${env.manifest.description}` : ""}`,
      );
      item.command = { command: "vscode.open", title: "Open Manifest", arguments: [entry.manifest] };
      return item;
    }
    const r = this.results.get(node.entry.dir, node.task.id);
    const item = new vscode.TreeItem(node.task.id, vscode.TreeItemCollapsibleState.None);
    item.id = `task:${node.entry.dir}#${node.task.id}`;
    item.contextValue = "task";
    item.description = describeTaskResult(r);
    const icon = r?.validation ? (r.validation.passed ? "pass" : "error") : "circle-outline";
    item.iconPath = new vscode.ThemeIcon(icon);
    item.tooltip = node.task.prompt.length > 400 ? `${node.task.prompt.slice(0, 400)}…` : node.task.prompt;
    item.command = { command: "rlenv.openTask", title: "Open Task", arguments: [node.target] };
    return item;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
