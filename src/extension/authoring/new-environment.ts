import { existsSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { templateFiles } from "../../core/environment/templates";
import { Domain } from "../../core/schema/common";
import type { ExtensionCtx } from "../context";

const DOMAIN_HELP: Record<string, string> = {
  code: "edit files and run tests in a sandbox; hidden tests grade",
  scene3d: "build a 3D scene with tool calls; checks in 3D space grade",
  document: "answer from long documents with citations; fields graded one by one",
  custom: "your own tools; starts from the code template",
};

/** Options a test (or another command) passes to skip the prompts. */
interface NewEnvironmentArgs {
  domain?: string;
  name?: string;
  parent?: string;
}

/**
 * "RL Env Studio: New Environment": pick a domain, name it, and write the starter files
 * (the same templates as `rlenv new`) into a new folder, then open its manifest.
 */
export async function newEnvironment(ctx: ExtensionCtx, arg: unknown): Promise<string | undefined> {
  const given = (typeof arg === "object" && arg !== null && !(arg instanceof vscode.Uri) ? arg : {}) as NewEnvironmentArgs;
  const domainPick =
    given.domain ??
    (
      await vscode.window.showQuickPick(
        Domain.options.map((d) => ({ label: d, detail: DOMAIN_HELP[d] ?? "" })),
        { placeHolder: "Domain of the new environment" },
      )
    )?.label;
  const domain = Domain.safeParse(domainPick);
  if (!domain.success) return undefined;
  const name =
    given.name ??
    (await vscode.window.showInputBox({
      prompt: "Environment name (also its folder name)",
      value: `my-${domain.data}-env`,
      validateInput: (v) => (/^[A-Za-z0-9._\-/]+$/.test(v) ? undefined : "letters, digits, . _ - / only"),
    }));
  if (!name) return undefined;
  const parent = given.parent ?? (arg instanceof vscode.Uri ? arg.fsPath : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  if (!parent) {
    void vscode.window.showWarningMessage("Open a folder first: a new environment is created inside the workspace.");
    return undefined;
  }
  const dir = path.join(parent, name);
  if (existsSync(path.join(dir, "environment.yaml"))) {
    void vscode.window.showWarningMessage(
      `${vscode.workspace.asRelativePath(dir)} already holds an environment.yaml; nothing was written.`,
    );
    return undefined;
  }
  for (const [rel, text] of Object.entries(templateFiles(domain.data, path.basename(name)))) {
    await vscode.workspace.fs.writeFile(vscode.Uri.file(path.join(dir, rel)), new TextEncoder().encode(text));
  }
  ctx.log.info(`created ${domain.data} environment at ${dir}`);
  await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, "environment.yaml")));
  await ctx.environments.refresh();
  return dir;
}
