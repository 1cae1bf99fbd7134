import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";
import { openTrajectory } from "../runs/open";
import { resolveTarget } from "./target";

/** Opens the file a task is defined in, at its line (a JSONL line, or the task folder's file). */
export async function openTask(ctx: ExtensionCtx, arg: unknown): Promise<vscode.TextEditor | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  if (!target) return undefined;
  const entry = ctx.environments.get(target.envDir);
  const task = entry?.result.env?.tasks.find((t) => t.id === target.taskId);
  if (!entry || !task) {
    void vscode.window.showWarningMessage(`No task '${target.taskId ?? ""}' in ${target.envDir}`);
    return undefined;
  }
  const line = Math.max(0, task.source.line - 1);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(task.source.file));
  return vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
}

export async function revealEnvironment(ctx: ExtensionCtx, arg: unknown): Promise<void> {
  const target = await resolveTarget(arg, ctx.environments);
  if (!target) return;
  await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(target.envDir));
}

/** Opens the newest trajectory recorded for a task from the editor (any policy). */
export async function openLastTrajectory(ctx: ExtensionCtx, arg: unknown): Promise<string | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  if (!target?.taskId) return undefined;
  const file = ctx.results.get(target.envDir, target.taskId)?.lastTrajectory;
  if (!file) {
    void vscode.window.showInformationMessage(`Task '${target.taskId}' has no trajectory yet: Validate or Rollout it first.`);
    return undefined;
  }
  await openTrajectory(ctx, file);
  return file;
}
