import * as vscode from "vscode";
import { DASHBOARD_PANEL, TRAJECTORY_PANEL, ViewerPanels } from "./panels";
import { TRAJECTORY_EDITOR, TrajectoryEditorProvider } from "./trajectory-editor";

/**
 * The trajectory viewer and run dashboard in VS Code: the custom editor for rollout
 * files, the panels (dashboard, compare) with their serializers, and the two commands
 * other features call: `rlenv.openTrajectory` (a path, Uri or {file, compare}) and
 * `rlenv.openDashboard` (a run folder).
 */
export function activateViewer(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const panels = new ViewerPanels(extension, log);
  extension.subscriptions.push(
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR, new TrajectoryEditorProvider(extension, log), {
      supportsMultipleEditorsPerDocument: true,
    }),
    vscode.window.registerWebviewPanelSerializer(DASHBOARD_PANEL, panels),
    vscode.window.registerWebviewPanelSerializer(TRAJECTORY_PANEL, panels),
    vscode.commands.registerCommand("rlenv.openTrajectory", (arg: unknown) => panels.openTrajectory(arg)),
    vscode.commands.registerCommand("rlenv.openDashboard", (arg: unknown) => panels.openDashboard(arg)),
  );
}
