import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import { allowedToExecute } from "../trust/guard";

/** A launch configuration for one task: what `rlenv.debugTask` and F5 without launch.json start. */
export function taskConfiguration(ctx: ExtensionCtx, envDir: string, taskId: string): vscode.DebugConfiguration {
  const model = ctx.settings.policy().ok;
  return {
    type: "rlenv",
    request: "launch",
    name: `Debug ${taskId}`,
    environment: envDir,
    task: taskId,
    // Without a configured model the reference solution is what can be stepped through.
    policy: model ? "model" : "oracle",
    stopOnEntry: true,
  };
}

/** The task under the cursor (its line in tasks.jsonl, or the task.yaml open), else the only task. */
function taskAtCursor(env: Environment, editor: vscode.TextEditor | undefined): string | undefined {
  if (editor) {
    const file = editor.document.uri.fsPath;
    const line = editor.selection.active.line + 1;
    const inFile = env.tasks.filter((t) => t.source.file === file);
    const hit = inFile.find((t) => t.source.line === line) ?? (inFile.length === 1 ? inFile[0] : undefined);
    if (hit) return hit.id;
  }
  return env.tasks.length === 1 ? env.tasks[0]?.id : undefined;
}

/** F5 with no launch.json, `launch.json` generation, and the trust check before any session. */
export class RolloutConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly ctx: ExtensionCtx) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    const editor = vscode.window.activeTextEditor;
    const entry = editor ? this.ctx.environments.containing(editor.document.uri.fsPath) : this.ctx.environments.list()[0];
    const env = entry?.result.env;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const rel =
      entry && folder
        ? `\${workspaceFolder}/${path.relative(folder, entry.dir).replace(/\\/g, "/")}`
        : // biome-ignore lint/suspicious/noTemplateCurlyInString: launch.json variables, substituted by VS Code
          "${workspaceFolder}/environments/ENV";
    const task = (env && taskAtCursor(env, editor)) ?? env?.tasks[0]?.id ?? "TASK";
    return [{ ...taskConfiguration(this.ctx, rel, task), name: `Debug ${task}` }];
  }

  async resolveDebugConfiguration(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    if (!allowedToExecute("debug a rollout")) return undefined;
    if (config.type && config.request) return config;
    // F5 without launch.json: the task of the open file.
    const editor = vscode.window.activeTextEditor;
    await this.ctx.environments.ready();
    const entry = editor ? this.ctx.environments.containing(editor.document.uri.fsPath) : undefined;
    const env = entry?.result.env;
    if (!entry || !env) {
      void vscode.window.showInformationMessage(
        "Open a task file (tasks.jsonl or task.yaml) of an environment to debug a rollout, or add an 'rlenv' configuration to launch.json.",
      );
      return undefined;
    }
    const task =
      taskAtCursor(env, editor) ??
      (await vscode.window.showQuickPick(
        env.tasks.map((t) => t.id),
        { placeHolder: `Which task of ${env.manifest.name}?` },
      ));
    return task ? taskConfiguration(this.ctx, entry.dir, task) : undefined;
  }
}
