import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";

function pathOf(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (typeof arg === "object" && arg !== null) {
    const o = arg as { file?: unknown; run?: { dir?: unknown } };
    if (typeof o.file === "string") return o.file;
    if (typeof o.run?.dir === "string") return o.run.dir;
  }
  return undefined;
}

/** Opens a rollout in the trajectory viewer. */
export async function openTrajectory(_ctx: ExtensionCtx, file: string): Promise<void> {
  await vscode.commands.executeCommand("rlenv.openTrajectory", vscode.Uri.file(file));
}

export async function openRollout(ctx: ExtensionCtx, arg: unknown): Promise<void> {
  const file = pathOf(arg);
  if (file) await openTrajectory(ctx, file);
}

/** Opens a run in the dashboard. */
export async function openRun(_ctx: ExtensionCtx, arg: unknown): Promise<void> {
  const dir = pathOf(arg);
  if (dir) await vscode.commands.executeCommand("rlenv.openDashboard", dir);
}
