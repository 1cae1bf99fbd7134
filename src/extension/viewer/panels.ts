import { statSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { InitContext } from "../../core/view/protocol/envelope";
import { targetFor } from "../../core/view/server/http-server";
import { TRAJECTORY_EDITOR } from "./trajectory-editor";
import { WebviewHost } from "./webview-host";

export const DASHBOARD_PANEL = "rlenv.dashboard";
export const TRAJECTORY_PANEL = "rlenv.trajectoryPanel";
export const AUDIT_PANEL = "rlenv.auditReport";

/** Accepts a path, a Uri, or {file|dir|run.dir, compare?, more?, row?} (what tree items, the dashboard and other features pass). */
export function argPath(arg: unknown): { file?: string; compare?: string; more?: string[]; row?: number } {
  if (typeof arg === "string") return { file: arg };
  if (arg instanceof vscode.Uri) return { file: arg.fsPath };
  if (typeof arg === "object" && arg !== null) {
    const o = arg as {
      file?: unknown;
      dir?: unknown;
      compare?: unknown;
      more?: unknown;
      row?: unknown;
      run?: { dir?: unknown };
      resourceUri?: unknown;
    };
    const file =
      typeof o.file === "string"
        ? o.file
        : typeof o.dir === "string"
          ? o.dir
          : typeof o.run?.dir === "string"
            ? o.run.dir
            : o.resourceUri instanceof vscode.Uri
              ? o.resourceUri.fsPath
              : undefined;
    const more = Array.isArray(o.more) ? o.more.filter((m): m is string => typeof m === "string").slice(0, 2) : [];
    const row = typeof o.row === "number" && Number.isInteger(o.row) && o.row >= 0 ? o.row : undefined;
    return {
      ...(file ? { file } : {}),
      ...(typeof o.compare === "string" ? { compare: o.compare } : {}),
      ...(more.length ? { more } : {}),
      ...(row !== undefined ? { row } : {}),
    };
  }
  return {};
}

/** Panels of the viewer apps (dashboard; trajectory side by side), restorable after a reload. */
export class ViewerPanels implements vscode.WebviewPanelSerializer {
  /** The panels showing each target (view type and init context), so a second open reveals the first. */
  private readonly open = new Map<string, vscode.WebviewPanel>();
  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /**
   * `rlenv.openTrajectory`: a file in the custom editor; two to four files (compare), or one
   * at a given step (a search hit), in a panel, since the custom editor takes no context.
   */
  async openTrajectory(arg: unknown): Promise<void> {
    const { file, compare, more, row } = argPath(arg);
    const target = file ?? vscode.window.activeTextEditor?.document.uri.fsPath;
    if (!target) return void vscode.window.showWarningMessage("Open a rollout file (runs/<id>/rollouts/*.jsonl) first.");
    if (!compare && row === undefined) {
      await vscode.commands.executeCommand("vscode.openWith", vscode.Uri.file(target), TRAJECTORY_EDITOR);
      return;
    }
    const t = targetFor(target);
    const rel = (f: string) => path.relative(t.root, path.resolve(f)).split(path.sep).join("/");
    const others = compare ? [compare, ...(more ?? [])] : [];
    const title = others.length ? `Compare ${[target, ...others].map((f) => path.basename(f)).join(" · ")}` : path.basename(target);
    this.show(TRAJECTORY_PANEL, title, {
      app: "trajectory",
      root: t.root,
      target: t.target,
      live: false,
      ...(compare ? { compare: rel(compare) } : {}),
      ...(compare && more?.length ? { more: more.map(rel) } : {}),
      ...(row !== undefined ? { row } : {}),
    });
  }

  /** `rlenv.openDashboard`: the run folder's dashboard. */
  async openDashboard(arg: unknown): Promise<void> {
    const dir = argPath(arg).file;
    if (!dir) return void vscode.window.showWarningMessage("Choose a run folder (runs/<id>) to open its dashboard.");
    let t: ReturnType<typeof targetFor>;
    try {
      t = targetFor(dir);
    } catch (err) {
      return void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    }
    this.show(DASHBOARD_PANEL, `Run ${path.basename(t.root)}`, { app: "dashboard", root: t.root, target: t.target, live: false });
  }

  /**
   * `rlenv.openAuditReport`: an audit report (audit.json, or the folder `rlenv audit --out` and the
   * Test Explorer's Audit profile write) in a panel; without an argument, the workspace's newest.
   */
  async openAuditReport(arg: unknown): Promise<void> {
    let file = argPath(arg).file;
    if (!file) {
      const found = await vscode.workspace.findFiles("**/audit.json", "**/node_modules/**", 200);
      const newest = found
        .map((u) => ({ u, t: statSync(u.fsPath).mtimeMs }))
        .sort((a, b) => b.t - a.t)
        .at(0);
      if (!newest)
        return void vscode.window.showWarningMessage("No audit.json in the workspace: run the Audit profile or `rlenv audit` first.");
      file = newest.u.fsPath;
    }
    let t: ReturnType<typeof targetFor>;
    try {
      t = targetFor(file);
    } catch (err) {
      return void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    }
    if (t.app !== "audit") return void vscode.window.showErrorMessage(`${file}: not an audit report (audit.json)`);
    this.show(AUDIT_PANEL, `Audit ${path.basename(t.root)}`, { app: "audit", root: t.root, target: t.target, live: false });
  }

  /**
   * Shows `ctx` in a panel: the one already showing it is brought forward (clicking a run twice
   * opened two identical dashboards), else a new one, or `existing` when VS Code restores one.
   */
  private show(
    viewType: string,
    title: string,
    ctx: ConstructorParameters<typeof WebviewHost>[2],
    snapshot: Record<string, unknown> | null = null,
    existing?: vscode.WebviewPanel,
  ): void {
    const key = `${viewType} ${JSON.stringify(ctx)}`;
    const open = this.open.get(key);
    if (open && !existing) return void open.reveal();
    const panel = existing ?? vscode.window.createWebviewPanel(viewType, title, vscode.ViewColumn.Active, { enableFindWidget: true });
    panel.title = title;
    const host = new WebviewHost(panel.webview, this.extension, ctx, this.log, snapshot);
    this.open.set(key, panel);
    panel.onDidDispose(() => {
      host.dispose();
      if (this.open.get(key) === panel) this.open.delete(key);
    });
  }

  /** Restores a panel from the snapshot its app saved (the app stores its init context in it). */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = (state ?? {}) as Record<string, unknown>;
    const ctx = InitContext.safeParse(saved.__context);
    if (!ctx.success || !ctx.data.root) {
      panel.dispose();
      return;
    }
    const c = ctx.data;
    const { __context: _, ...snapshot } = saved;
    this.show(
      panel.viewType,
      panel.title,
      {
        app: c.app,
        root: c.root!,
        target: c.target,
        live: c.live,
        ...(c.compare ? { compare: c.compare } : {}),
        ...(c.more ? { more: c.more } : {}),
        ...(c.row !== undefined ? { row: c.row } : {}),
      },
      snapshot,
      panel,
    );
  }
}
