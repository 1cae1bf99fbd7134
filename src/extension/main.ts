import type * as vscode from "vscode";

/** Entry point: kept to a few lines; features are wired in start.ts, loaded on activation. */
export async function activate(context: vscode.ExtensionContext): Promise<unknown> {
  const { startExtension } = await import("./start");
  return startExtension(context);
}

export function deactivate(): void {}
