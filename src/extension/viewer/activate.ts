import * as vscode from "vscode";
import type { CommandSpec } from "../commands/table";
import { AUDIT_PANEL, DASHBOARD_PANEL, TRAJECTORY_PANEL, ViewerPanels } from "./panels";
import { TRAJECTORY_EDITOR, TrajectoryEditorProvider } from "./trajectory-editor";

/**
 * The trajectory viewer and run dashboard in VS Code: the custom editor for rollout
 * files, the panels (dashboard, compare) with their serializers; returns the two commands
 * other features call (for the command table): `rlenv.openTrajectory` (a path, Uri or {file, compare}) and
 * `rlenv.openDashboard` (a run folder), and `rlenv.openAuditReport` (an audit.json or its folder).
 */
export function activateViewer(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): CommandSpec[] {
  const panels = new ViewerPanels(extension, log);
  extension.subscriptions.push(
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR, new TrajectoryEditorProvider(extension, log), {
      supportsMultipleEditorsPerDocument: true,
    }),
    vscode.window.registerWebviewPanelSerializer(DASHBOARD_PANEL, panels),
    vscode.window.registerWebviewPanelSerializer(TRAJECTORY_PANEL, panels),
    vscode.window.registerWebviewPanelSerializer(AUDIT_PANEL, panels),
  );
  return [
    { id: "rlenv.openTrajectory", run: (_ctx, arg) => panels.openTrajectory(arg) },
    { id: "rlenv.openDashboard", run: (_ctx, arg) => panels.openDashboard(arg) },
    { id: "rlenv.openAuditReport", run: (_ctx, arg) => panels.openAuditReport(arg) },
  ];
}
