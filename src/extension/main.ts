import type * as vscode from "vscode";

/** Entry point: kept to a few lines; features are wired in their own folders. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const { startExtension } = await import("./start");
  await startExtension(context);
}

export function deactivate(): void {}
