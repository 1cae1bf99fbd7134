import path from "node:path";
import * as vscode from "vscode";
import type { Settings } from "../settings/settings";
import { describeRun, listRollouts, listRuns, type RunListing, readRolloutSummary, rolloutFailureLine } from "../../core/app/list-runs";

export type RunTreeNode = { kind: "run"; run: RunListing } | { kind: "rollout"; file: string };

/** The Runs view: runs in each workspace folder's runs folder, newest first, then their rollouts. */
/** A run's start as a person reads it in a list: "Dec 5, 09:14" (local time); the id when it is not a date. */
function startedAt(created: string): string {
  const d = new Date(created);
  if (Number.isNaN(d.getTime())) return created;
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false });
}

export class RunsTree implements vscode.TreeDataProvider<RunTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunTreeNode | undefined>();
  /** Fires when runs appeared, changed or went away. */
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[] = [this.changed];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly settings: Settings) {
    // run.json and summary.json are rewritten as a run goes; debounce the redraws.
    const watcher = vscode.workspace.createFileSystemWatcher("**/{run.json,summary.json,rollouts/*.jsonl}");
    const poke = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), 300);
    };
    this.subs.push(watcher, watcher.onDidCreate(poke), watcher.onDidChange(poke), watcher.onDidDelete(poke));
    this.subs.push(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration("rlenv.runsFolder") && this.refresh()));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Every run of the workspace, newest first. */
  runs(): RunListing[] {
    const all = (vscode.workspace.workspaceFolders ?? []).flatMap((f) => listRuns({ runsDir: this.settings.runsDir(f).fsPath }));
    return all.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  }

  getChildren(node?: RunTreeNode): RunTreeNode[] {
    if (!node) return this.runs().map((run) => ({ kind: "run", run }));
    if (node.kind === "run") return listRollouts(node.run.dir).map((file) => ({ kind: "rollout", file }));
    return [];
  }

  getTreeItem(node: RunTreeNode): vscode.TreeItem {
    if (node.kind === "run") {
      const { run } = node;
      const item = new vscode.TreeItem(
        // Two runs of one environment and policy differ by when they started: that goes in the label.
        run.record ? `${run.record.env.name} · ${run.record.config.policy.kind} · ${startedAt(run.created)}` : run.id,
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = `run:${run.dir}`;
      item.contextValue = "run";
      item.description = describeRun(run);
      const status = run.record?.status;
      item.iconPath = new vscode.ThemeIcon(
        status === "running" ? "sync~spin" : status === "completed" ? "graph" : status ? "warning" : "question",
      );
      item.tooltip = new vscode.MarkdownString(
        `**${run.id}**\n\n${run.created}\n\n${status ?? ""}${run.problem ? `\n\n⚠ ${run.problem}` : ""}`,
      );
      // The most frequent reasons rollouts fell short, as plain text (a model's output may be in them).
      for (const f of (run.summary?.failures ?? []).slice(0, 5)) item.tooltip.appendMarkdown("\n\n").appendText(`${f.count}× ${f.reason}`);
      item.command = { command: "rlenv.openRun", title: "Open Run Dashboard", arguments: [run.dir] };
      return item;
    }
    const r = readRolloutSummary(node.file);
    const item = new vscode.TreeItem(r.task ? `${r.task}` : path.basename(node.file), vscode.TreeItemCollapsibleState.None);
    item.id = `rollout:${node.file}`;
    item.contextValue = "rollout";
    const failure = rolloutFailureLine(r);
    item.description = [path.basename(node.file, ".jsonl"), r.reward === null ? r.status : `reward ${r.reward.toFixed(2)}`, failure]
      .filter(Boolean)
      .join(" · ");
    if (failure)
      item.tooltip = new vscode.MarkdownString().appendText(
        `${r.task ?? path.basename(node.file)}: ${r.reward === null ? r.status : `reward ${r.reward.toFixed(2)}`}\n\n${failure}`,
      );
    item.iconPath = new vscode.ThemeIcon(
      r.reward === null ? "circle-slash" : r.reward >= 1 ? "pass" : r.reward > 0 ? "circle-large-outline" : "error",
    );
    item.resourceUri = vscode.Uri.file(node.file);
    item.command = { command: "rlenv.openRollout", title: "Open Rollout", arguments: [node.file] };
    return item;
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
  }
}
