import path from "node:path";
import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";
import { loadEngine } from "../rollouts/engine";

/** Hovers on manifest keys (environment.yaml, task.yaml): the text docs/reference.md has for them, rendered by the same code. */
export class ReferenceHovers implements vscode.HoverProvider {
  constructor(private readonly ctx: ExtensionCtx) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const file = doc.uri.fsPath;
    const kind = path.basename(file) === "environment.yaml" ? "environment" : "task";
    const env = this.ctx.environments.list().find((e) => file === e.manifest.fsPath || file.startsWith(`${e.dir}${path.sep}`));
    const domain = env?.result.env?.manifest.domain ?? (/^domain:\s*(\S+)/m.exec(doc.getText())?.[1] || "custom");
    // The reference is rendered by the engine bundle: loaded on the first hover, never at activation.
    const text = await loadEngine().referenceHover(kind, doc.getText(), doc.offsetAt(pos), domain);
    if (!text) return undefined;
    const range = doc.getWordRangeAtPosition(pos, /[A-Za-z0-9_-]+/);
    return new vscode.Hover(new vscode.MarkdownString(text), range);
  }
}
