import path from "node:path";
import * as vscode from "vscode";
import { MANIFEST_FILE } from "../../core/environment/load-environment";
import type { EnvironmentIndex } from "../environments/index";
import type { Target } from "../environments/target";
import type { ResultsStore } from "../rollouts/results";

/** Validate · Rollout · Debug on a manifest's first line and on each task's line (plus Open last trajectory). */
export class EnvironmentCodeLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when tasks or their results changed. */
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly index: EnvironmentIndex,
    private readonly results: ResultsStore,
  ) {
    this.subs = [this.changed, index.onDidChange(() => this.changed.fire()), results.onDidChange(() => this.changed.fire())];
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const file = doc.uri.fsPath;
    const lenses = (range: vscode.Range, target: Target, withTrajectory: boolean): vscode.CodeLens[] => [
      new vscode.CodeLens(range, {
        title: "$(pass) Validate",
        command: "rlenv.validate",
        arguments: [target],
        tooltip: "Oracle must pass, nop must fail",
      }),
      new vscode.CodeLens(range, {
        title: "$(play) Rollout",
        command: "rlenv.rollout",
        arguments: [target],
        tooltip: "Roll out the configured policy",
      }),
      new vscode.CodeLens(range, { title: "$(debug-alt) Debug", command: "rlenv.debug", arguments: [target] }),
      ...(target.taskId
        ? [
            new vscode.CodeLens(range, {
              title: "$(person) Play",
              command: "rlenv.playTask",
              arguments: [target],
              tooltip: "Play this task yourself: you are the agent",
            }),
          ]
        : []),
      ...(withTrajectory
        ? [
            new vscode.CodeLens(range, {
              title: "$(history) Open last trajectory",
              command: "rlenv.openLastTrajectory",
              arguments: [target],
            }),
          ]
        : []),
    ];
    if (path.basename(file) === MANIFEST_FILE) {
      return lenses(new vscode.Range(0, 0, 0, 0), { envDir: path.dirname(file) }, false);
    }
    const entry = this.index.containing(file);
    const tasks = entry?.result.env?.tasks.filter((t) => t.source.file === file) ?? [];
    if (!entry) return [];
    return tasks.flatMap((t) => {
      const line = Math.min(Math.max(0, t.source.line - 1), doc.lineCount - 1);
      const hasTrajectory = Boolean(this.results.get(entry.dir, t.id)?.lastTrajectory);
      return lenses(new vscode.Range(line, 0, line, 0), { envDir: entry.dir, taskId: t.id }, hasTrajectory);
    });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
