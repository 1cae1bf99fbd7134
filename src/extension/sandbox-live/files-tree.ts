import path from "node:path";
import * as vscode from "vscode";
import type { LiveRollout, LiveRollouts } from "../debug/live-rollouts";
import { sandboxUri } from "./files";
import { listSandbox, type SandboxEntry } from "./listing";

type Node =
  | { kind: "rollout"; rollout: LiveRollout }
  | { kind: "entry"; rollout: LiveRollout; entry: SandboxEntry }
  | { kind: "error"; message: string };

/**
 * "Sandbox Files" in the Run and Debug view: each live rollout, under it its workdir as the
 * sandbox sees it now. A tree here rather than a workspace folder: adding a folder to the
 * workspace would rewrite the user's workspace (and restart extensions on a single-folder
 * window) for something that lives as long as a debug session; files open read-only.
 */
export class SandboxFilesTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly live: LiveRollouts) {
    this.sub = live.onDidChange(() => this.refresh());
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(n: Node): vscode.TreeItem {
    if (n.kind === "error") {
      const item = new vscode.TreeItem(n.message);
      item.iconPath = new vscode.ThemeIcon("warning");
      return item;
    }
    if (n.kind === "rollout") {
      const item = new vscode.TreeItem(n.rollout.label, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon("vm");
      item.contextValue = "sandbox";
      item.id = `rollout:${n.rollout.id}`;
      return item;
    }
    const uri = sandboxUri(n.rollout.id, n.entry.path);
    const dir = n.entry.kind === "dir";
    const item = new vscode.TreeItem(uri, dir ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.label = path.posix.basename(n.entry.path);
    item.id = `${n.rollout.id}:${n.entry.path}`;
    item.tooltip = `${n.entry.path} (${n.entry.kind}, ${n.entry.size} bytes)`;
    if (n.entry.kind === "file") item.command = { command: "vscode.open", title: "Open", arguments: [uri, { preview: true }] };
    return item;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (!n) return this.live.all().map((rollout) => ({ kind: "rollout", rollout }));
    if (n.kind === "error") return [];
    const rel = n.kind === "rollout" ? "" : n.entry.path;
    try {
      const entries = await listSandbox(await n.rollout.sandbox(), rel);
      return entries.map((entry) => ({ kind: "entry", rollout: n.rollout, entry }));
    } catch (e) {
      return [{ kind: "error", message: e instanceof Error ? e.message : String(e) }];
    }
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
