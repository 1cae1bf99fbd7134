import type * as vscode from "vscode";
import { targetFor } from "../../core/view/server/http-server";
import { WebviewHost } from "./webview-host";

export const TRAJECTORY_EDITOR = "rlenv.trajectory";

/**
 * The custom editor for rollout files (runs/**\/rollouts/*.jsonl): read-only, the
 * trajectory viewer app in the editor's webview. The document is only the file's URI:
 * the viewer streams the file through the host, it is never loaded whole.
 */
export class TrajectoryEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => {} };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const t = targetFor(document.uri.fsPath);
    const host = new WebviewHost(
      panel.webview,
      this.extension,
      { app: "trajectory", root: t.root, target: t.target, live: false },
      this.log,
    );
    panel.onDidDispose(() => host.dispose());
  }
}
