import path from "node:path";
import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";

/** Commands the viewer feature registers (issue 9); guarded so the views work before it lands. */
const OPEN_TRAJECTORY = "rlenv.openTrajectory";
const OPEN_DASHBOARD = "rlenv.openDashboard";

async function has(command: string): Promise<boolean> {
  return (await vscode.commands.getCommands(true)).includes(command);
}

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

/** Opens a rollout in the trajectory viewer, or as text where the viewer is absent. */
export async function openTrajectory(ctx: ExtensionCtx, file: string): Promise<void> {
  if (await has(OPEN_TRAJECTORY)) {
    await vscode.commands.executeCommand(OPEN_TRAJECTORY, vscode.Uri.file(file));
    return;
  }
  ctx.log.info(`${OPEN_TRAJECTORY} is not registered: opening ${file} as text`);
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
}

export async function openRollout(ctx: ExtensionCtx, arg: unknown): Promise<void> {
  const file = pathOf(arg);
  if (file) await openTrajectory(ctx, file);
}

/** Opens a run in the dashboard, or its summary as text where the dashboard is absent. */
export async function openRun(ctx: ExtensionCtx, arg: unknown): Promise<void> {
  const dir = pathOf(arg);
  if (!dir) return;
  if (await has(OPEN_DASHBOARD)) {
    await vscode.commands.executeCommand(OPEN_DASHBOARD, dir);
    return;
  }
  ctx.log.info(`${OPEN_DASHBOARD} is not registered: opening the run's summary as text`);
  const summary = path.join(dir, "summary.json");
  await vscode.window.showTextDocument(vscode.Uri.file((await exists(summary)) ? summary : path.join(dir, "run.json")), { preview: true });
}

async function exists(file: string): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(file));
    return true;
  } catch {
    return false;
  }
}
