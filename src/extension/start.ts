import * as vscode from "vscode";

/** Builds the extension's features; reports its own start-up failure (VS Code shows none). */
export async function startExtension(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel("RL Env Studio", { log: true });
  context.subscriptions.push(log);
  log.info("RL Env Studio started");
}
