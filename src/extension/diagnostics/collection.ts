import path from "node:path";
import * as vscode from "vscode";
import { loadManifestText, MANIFEST_FILE } from "../../core/environment/load-environment";
import type { Problem } from "../../core/model/problem";
import { HARBOR_CONFIG, isHarborTask } from "../../core/harbor/load-harbor";
import { parseTaskConfig } from "../../core/harbor/task-config";
import type { EnvironmentIndex } from "../environments/index";

/** A Problem's place as a vscode.Range (the loader counts from 1, VS Code from 0; end exclusive). */
export function problemRange(p: Problem): vscode.Range {
  return new vscode.Range(Math.max(0, p.line - 1), Math.max(0, p.column - 1), Math.max(0, p.endLine - 1), Math.max(0, p.endColumn - 1));
}

/** The message with its field path in front, unless the message already names that field. */
export function diagnosticMessage(p: Problem): string {
  const last = p.path
    .split(/[.[\]]/)
    .filter(Boolean)
    .pop();
  return p.path && !(last && p.message.includes(`'${last}'`)) ? `${p.path}: ${p.message}` : p.message;
}

/** Key under which a diagnostic's fix is kept: diagnostics handed back to code actions are copies. */
export function fixKey(uri: vscode.Uri, d: { range: vscode.Range; message: string }): string {
  return `${uri.toString()}|${d.range.start.line}:${d.range.start.character}|${d.message}`;
}

/**
 * Problems of every environment as diagnostics. Manifests are checked from the editor
 * buffer as the user types (unsaved text included); task and prompt files from disk when
 * the environment index reloads (on save).
 */
export class EnvironmentDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection("rlenv");
  /** Problems with a mechanical fix, by fixKey. */
  readonly fixes = new Map<string, Problem>();
  /** Files each manifest last reported on, so stale diagnostics are cleared. */
  private readonly reported = new Map<string, Set<string>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly index: EnvironmentIndex) {
    this.subs.push(
      this.collection,
      index.onDidChange(() => this.fromIndex()),
      vscode.workspace.onDidOpenTextDocument((d) => this.fromBuffer(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidSaveTextDocument((d) => this.fromBuffer(d)),
    );
    for (const d of vscode.workspace.textDocuments) this.fromBuffer(d);
  }

  private isManifest(d: vscode.TextDocument): boolean {
    if (d.uri.scheme !== "file") return false;
    const name = path.basename(d.uri.fsPath);
    return name === MANIFEST_FILE || (name === HARBOR_CONFIG && isHarborTask(path.dirname(d.uri.fsPath)));
  }

  private schedule(d: vscode.TextDocument): void {
    if (!this.isManifest(d)) return;
    const k = d.uri.fsPath;
    clearTimeout(this.timers.get(k));
    this.timers.set(
      k,
      setTimeout(() => this.fromBuffer(d), 120),
    );
  }

  /**
   * Checks a manifest from its current editor text. The other files' problems (tasks, the
   * domain's task checks) stay as the last load found them: typing in the manifest must
   * not make a tasks.jsonl look clean.
   */
  fromBuffer(d: vscode.TextDocument): void {
    if (!this.isManifest(d)) return;
    const file = d.uri.fsPath;
    // A Harbor task's task.toml is checked as the loader reads it, each problem at its field.
    const { problems } =
      path.basename(file) === HARBOR_CONFIG ? parseTaskConfig(file, d.getText()) : loadManifestText(path.dirname(file), file, d.getText());
    const loaded = this.index.list().find((e) => e.manifest.fsPath === file)?.result.problems ?? [];
    this.publish(file, [...problems, ...loaded.filter((p) => p.file !== file)]);
  }

  private fromIndex(): void {
    const open = new Map(vscode.workspace.textDocuments.filter((d) => this.isManifest(d)).map((d) => [d.uri.fsPath, d]));
    const live = new Set<string>();
    for (const e of this.index.list()) {
      live.add(e.manifest.fsPath);
      const doc = open.get(e.manifest.fsPath);
      if (doc?.isDirty) this.fromBuffer(doc);
      else this.publish(e.manifest.fsPath, e.result.problems);
    }
    for (const m of [...this.reported.keys()]) if (!live.has(m) && !open.has(m)) this.publish(m, []);
  }

  private publish(manifest: string, problems: Problem[]): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const f of this.reported.get(manifest) ?? []) byFile.set(f, []);
    for (const key of [...this.fixes.keys()])
      if ([...byFile.keys()].some((f) => key.startsWith(vscode.Uri.file(f).toString() + "|"))) this.fixes.delete(key);
    for (const p of problems) {
      const d = new vscode.Diagnostic(
        problemRange(p),
        diagnosticMessage(p),
        p.severity === "error" ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
      );
      d.source = "rlenv";
      if (p.fix) d.code = p.fix.kind;
      const list = byFile.get(p.file) ?? [];
      list.push(d);
      byFile.set(p.file, list);
      if (p.fix) this.fixes.set(fixKey(vscode.Uri.file(p.file), d), p);
    }
    for (const [f, list] of byFile) this.collection.set(vscode.Uri.file(f), list);
    this.reported.set(manifest, new Set([...byFile.keys()].filter((f) => (byFile.get(f)?.length ?? 0) > 0)));
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.subs) s.dispose();
  }
}
