import * as vscode from "vscode";
import { taskTomlCompletions, taskTomlHover } from "../../core/harbor/task-toml-schema";

/** Harbor's task.toml, wherever it is (a task folder's config; files of other tools with that name get nothing they do not ask for). */
export const TASK_TOML: vscode.DocumentSelector = [{ scheme: "file", pattern: "**/task.toml" }];

/** Completion of task.toml from the table of Harbor's fields: the keys of the table the cursor is in, enumerated values, table names. */
export class TaskTomlCompletion implements vscode.CompletionItemProvider {
  provideCompletionItems(doc: vscode.TextDocument, pos: vscode.Position): vscode.CompletionItem[] {
    return taskTomlCompletions(doc.getText(), pos.line, pos.character).map((c) => {
      const kind =
        c.kind === "table"
          ? vscode.CompletionItemKind.Module
          : c.kind === "value"
            ? vscode.CompletionItemKind.EnumMember
            : vscode.CompletionItemKind.Property;
      const item = new vscode.CompletionItem(c.label, kind);
      item.insertText = new vscode.SnippetString(c.insert);
      item.detail = c.detail;
      item.documentation = new vscode.MarkdownString(c.doc);
      return item;
    });
  }
}

/** A hover on a task.toml key: what the field means in Harbor and what this tool does with it. */
export class TaskTomlHover implements vscode.HoverProvider {
  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const h = taskTomlHover(doc.getText(), pos.line);
    const range = doc.getWordRangeAtPosition(pos, /[A-Za-z0-9_-]+/);
    if (!h || !range || doc.getText(range) !== h.key) return undefined;
    const where = h.table ? `[${h.table}].` : "";
    return new vscode.Hover(new vscode.MarkdownString(`**${where}${h.key}** (${h.type})\n\n${h.doc}`), range);
  }
}
