import path from "node:path";
import * as vscode from "vscode";
import { FromApp, type FromHost, type InitContext } from "../../core/view/protocol/envelope";
import { renderPage } from "../../core/view/page";
import { ViewRequestError, ViewService } from "../../core/view/server/view-service";
import { loadEngine } from "../rollouts/engine";

/** Where the app bundles live inside the extension: the only folder a webview may load from. */
export function bundleRoot(extension: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(extension.extensionUri, "dist", "webviews");
}

export function webviewOptions(extension: vscode.ExtensionContext): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [bundleRoot(extension)] };
}

/** The requests each webview app's host answered (`method {params}`), by the file or folder it shows (the extension-host suites read it). */
export const servedRequests = new Map<string, string[]>();

/**
 * The host half of an app in a webview: serves the page (nonce CSP, bundles through
 * asWebviewUri), answers the ready handshake with the init context and the saved
 * snapshot, answers requests through the same ViewService as `rlenv view`, and tells a
 * live viewer when its file changes. Every message from the webview is parsed.
 */
export class WebviewHost implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly service: ViewService;
  private snapshot: Record<string, unknown> | null;

  constructor(
    private readonly webview: vscode.Webview,
    extension: vscode.ExtensionContext,
    private readonly context: Omit<InitContext, "backend" | "root"> & { root: string },
    private readonly log: vscode.LogOutputChannel,
    snapshot: Record<string, unknown> | null = null,
  ) {
    this.snapshot = snapshot;
    this.service = new ViewService(context.root, { tokenPieces: (rollout) => loadEngine().tokenPiecesForRollout(rollout) });
    const bundles = bundleRoot(extension);
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(bundles, name)).toString();
    webview.options = webviewOptions(extension);
    webview.html = renderPage({
      app: context.app,
      title: context.app === "dashboard" ? "Run dashboard" : context.app === "audit" ? "Audit report" : "Trajectory",
      cspSource: webview.cspSource,
      scriptUri: asset(`${context.app}.js`),
      styleUri: asset(`${context.app}.css`),
      backend: "webview",
    });
    this.disposables.push(webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)));
    // A rollout still being written: tell the viewer when the file grows.
    if (context.app === "trajectory") {
      const abs = path.resolve(context.root, context.target);
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(path.dirname(abs)), path.basename(abs)),
      );
      watcher.onDidChange(() => this.post({ kind: "changed" }));
      this.disposables.push(watcher);
    }
  }

  private post(m: FromHost): void {
    void this.webview.postMessage(m);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = FromApp.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`viewer: ignored a malformed message: ${parsed.error.issues[0]?.message}`);
      return;
    }
    const m = parsed.data;
    switch (m.kind) {
      case "ready":
        this.post({ kind: "init", context: { ...this.context, backend: "webview" }, snapshot: this.snapshot });
        return;
      case "snapshot":
        this.snapshot = m.state;
        return;
      case "open": {
        const file = path.resolve(this.context.root, m.target);
        const compare = m.compare ? path.resolve(this.context.root, m.compare) : undefined;
        const more = (m.more ?? []).map((f) => path.resolve(this.context.root, f));
        // Compare of up to four, and a search hit's step, travel with the file.
        const arg =
          compare || m.row !== undefined
            ? { file, ...(compare ? { compare, more } : {}), ...(m.row !== undefined ? { row: m.row } : {}) }
            : vscode.Uri.file(file);
        await vscode.commands.executeCommand(m.app === "dashboard" ? "rlenv.openDashboard" : "rlenv.openTrajectory", arg);
        return;
      }
      case "request":
        try {
          const result = await this.service.handle(m.method, m.params);
          const shown = path.resolve(this.context.root, this.context.target);
          servedRequests.set(shown, [...(servedRequests.get(shown) ?? []).slice(-99), `${m.method} ${JSON.stringify(m.params)}`]);
          this.post({ kind: "response", id: m.id, ok: true, result });
        } catch (err) {
          if (!(err instanceof ViewRequestError))
            this.log.error(`viewer: ${m.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          this.post({ kind: "response", id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) });
        }
        return;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
