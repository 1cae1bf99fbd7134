import path from "node:path";
import * as vscode from "vscode";
import { MANIFEST_FILE } from "../../core/environment/load-environment";
import type { EnvironmentIndex } from "./index";

/** What a command acts on: an environment, or one task of it. */
export interface Target {
  envDir: string;
  taskId?: string;
}

function isTarget(v: unknown): v is Target {
  return typeof v === "object" && v !== null && typeof (v as { envDir?: unknown }).envDir === "string";
}

/**
 * Commands are called from the tree (a node holding `target`), CodeLens and tests (a
 * Target), the Explorer (a Uri) or the palette (nothing: the active editor's environment,
 * else a pick). Returns undefined when the user cancels or nothing matches.
 */
export async function resolveTarget(arg: unknown, index: EnvironmentIndex): Promise<Target | undefined> {
  if (isTarget(arg)) return arg;
  if (typeof arg === "object" && arg !== null && isTarget((arg as { target?: unknown }).target)) return (arg as { target: Target }).target;
  const file = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === "string" ? arg : vscode.window.activeTextEditor?.document.uri.fsPath;
  await index.ready();
  if (file) {
    const byDir =
      index.get(file) ??
      index.get(path.dirname(file)) ??
      (path.basename(file) === MANIFEST_FILE ? index.get(path.dirname(file)) : undefined);
    const hit = byDir ?? index.containing(file);
    if (hit) return { envDir: hit.dir };
  }
  const all = index.list();
  if (all.length === 1 && all[0]) return { envDir: all[0].dir };
  if (all.length === 0) {
    void vscode.window.showInformationMessage(`No ${MANIFEST_FILE} in this workspace. Create one with "RL Env Studio: New Environment".`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all.map((e) => ({ label: e.label, description: vscode.workspace.asRelativePath(e.dir), dir: e.dir })),
    { placeHolder: "Which environment?" },
  );
  return pick ? { envDir: pick.dir } : undefined;
}
