import * as vscode from "vscode";
import type { EnvironmentIndex } from "../environments/index";

/** Test item ids: the environment folder for a suite, `folder#task` for a test. */
export const suiteId = (envDir: string) => envDir;
export const testId = (envDir: string, taskId: string) => `${envDir}#${taskId}`;

/** Rebuilds the test tree from the index: each environment a suite, each task a test at its line. */
export function syncTestItems(controller: vscode.TestController, index: EnvironmentIndex): void {
  const suites: vscode.TestItem[] = [];
  for (const entry of index.list()) {
    const suite = controller.createTestItem(suiteId(entry.dir), entry.label, entry.manifest);
    suite.range = new vscode.Range(0, 0, 0, 0);
    const errors = entry.result.problems.filter((p) => p.severity === "error");
    suite.error = errors.length
      ? new vscode.MarkdownString(errors.map((p) => `- ${vscode.workspace.asRelativePath(p.file)}:${p.line}: ${p.message}`).join("\n"))
      : undefined;
    for (const task of entry.result.env?.tasks ?? []) {
      const item = controller.createTestItem(testId(entry.dir, task.id), task.id, vscode.Uri.file(task.source.file));
      const line = Math.max(0, task.source.line - 1);
      item.range = new vscode.Range(line, 0, line, 0);
      suite.children.add(item);
    }
    suites.push(suite);
  }
  controller.items.replace(suites);
}
