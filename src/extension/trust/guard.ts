import * as vscode from "vscode";

/**
 * Workspace Trust: rollouts and validation run model-written code and the environment's
 * own commands, so an untrusted workspace executes nothing. Returns whether `action`
 * may run; when it may not, tells the user why and offers to manage trust.
 */
export function allowedToExecute(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  const manage = "Manage Workspace Trust";
  void vscode.window
    .showWarningMessage(
      `RL Env Studio did not ${action}: this workspace is not trusted, and ${action} would run the environment's commands and sandboxes. Views, diagnostics and the trajectory viewer still work.`,
      manage,
    )
    .then((choice) => {
      if (choice === manage) void vscode.commands.executeCommand("workbench.trust.manage");
    });
  return false;
}
