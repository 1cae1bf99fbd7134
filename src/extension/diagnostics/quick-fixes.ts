import * as vscode from "vscode";
import { fixEdit } from "../authoring/fix-edits";
import { type EnvironmentDiagnostics, fixKey } from "./collection";

/** Quick fixes for diagnostics that carry a mechanical fix: rename to the field meant, insert a missing one. */
export class ProblemQuickFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly diagnostics: EnvironmentDiagnostics) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    const json = !doc.uri.fsPath.endsWith(".yaml") && !doc.uri.fsPath.endsWith(".yml");
    for (const d of context.diagnostics) {
      if (d.source !== "rlenv") continue;
      const problem = this.diagnostics.fixes.get(fixKey(doc.uri, d));
      const edit = problem ? fixEdit(doc.getText(), problem, json) : undefined;
      if (!problem?.fix || !edit) continue;
      const title =
        problem.fix.kind === "rename-field"
          ? `Rename '${problem.fix.from}' to '${problem.fix.to}'`
          : `Insert missing field '${problem.fix.field}'`;
      const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
      action.diagnostics = [d];
      action.isPreferred = true;
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(doc.uri, new vscode.Range(doc.positionAt(edit.start), doc.positionAt(edit.end)), edit.text);
      actions.push(action);
    }
    return actions;
  }
}
