import { existsSync, statSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { loadEnvironment, MANIFEST_FILE } from "../../core/environment/load-environment";
import type { Environment, LoadResult } from "../../core/model/environment";
import { HARBOR_CONFIG, isHarborTask } from "../../core/harbor/load-harbor";
import type { Problem } from "../../core/model/problem";
import { loadEngine } from "../rollouts/engine";

/** One environment folder of the workspace and its last load (problems included). */
export interface EnvironmentEntry {
  manifest: vscode.Uri;
  dir: string;
  result: LoadResult;
  /** The display name: the manifest's `name`, else the folder name. */
  label: string;
}

const IGNORED = "**/{node_modules,.git,dist,.vscode-test,.test-artifacts}/**";
/** Folders whose creation never means a new environment (the scan ignores them too). */
const BUILD_OUTPUT = /[/\\](dist|\.vscode-test|\.test-artifacts)([/\\]|$)/;

/**
 * Every environment.yaml in the workspace, loaded with the core loader and kept fresh
 * when files change. Views, tests and CodeLens read from here.
 */
export class EnvironmentIndex implements vscode.Disposable {
  private readonly entries = new Map<string, EnvironmentEntry>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after environments were added, removed or reloaded. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private pending = new Set<string>();
  /** Created paths among `pending`: a created folder may hold a manifest whose own event never came. */
  private created = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {
    const watcher = vscode.workspace.createFileSystemWatcher("**/*");
    // A changed file reloads the environment that contains it; a manifest created or
    // deleted anywhere rescans.
    const touched = (uri: vscode.Uri) => this.onFileEvent(uri);
    const created = (uri: vscode.Uri) => this.onFileEvent(uri, true);
    this.disposables.push(watcher, watcher.onDidChange(touched), watcher.onDidCreate(created), watcher.onDidDelete(touched));
    this.disposables.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refresh()));
  }

  /** All environments, sorted by label. */
  list(): EnvironmentEntry[] {
    return [...this.entries.values()].sort((a, b) => a.label.localeCompare(b.label));
  }

  get(dir: string): EnvironmentEntry | undefined {
    return [...this.entries.values()].find((e) => e.dir === dir);
  }

  /** The environment whose folder holds this file (the innermost one). */
  containing(file: string): EnvironmentEntry | undefined {
    let best: EnvironmentEntry | undefined;
    for (const e of this.entries.values()) {
      if ((file === e.dir || file.startsWith(e.dir + path.sep)) && (!best || e.dir.length > best.dir.length)) best = e;
    }
    return best;
  }

  /** Rescans the workspace for manifests and reloads all of them. */
  refresh(): Promise<void> {
    this.scanning = this.scan();
    return this.scanning;
  }

  /** Resolves when the current scan (or the first one) is done. */
  ready(): Promise<void> {
    return this.scanning ?? this.refresh();
  }

  private async scan(): Promise<void> {
    const manifests = await vscode.workspace.findFiles(`**/${MANIFEST_FILE}`, IGNORED);
    // Harbor task folders (task.toml, no environment.yaml) are environments as they are.
    const harbor = (await vscode.workspace.findFiles(`**/${HARBOR_CONFIG}`, IGNORED)).filter((u) => isHarborTask(path.dirname(u.fsPath)));
    const found = [...manifests, ...harbor];
    this.entries.clear();
    for (const uri of found) this.load(uri);
    this.log.info(`found ${found.length} environment${found.length === 1 ? "" : "s"}`);
    this.changed.fire();
  }

  private load(uri: vscode.Uri): void {
    const started = Date.now();
    let result: LoadResult;
    try {
      result = loadEnvironment(uri.fsPath);
    } catch (e) {
      // The loader reports problems rather than throwing; an exception here is a bug, so keep the entry with it shown.
      result = {
        env: null,
        problems: [
          {
            file: uri.fsPath,
            line: 1,
            column: 1,
            endLine: 1,
            endColumn: 1,
            path: "",
            message: `could not load: ${(e as Error).message}`,
            severity: "error",
          },
        ],
      };
    }
    const dir = path.dirname(uri.fsPath);
    this.entries.set(uri.fsPath, { manifest: uri, dir, result, label: result.env?.manifest.name ?? path.basename(dir) });
    this.log.debug(
      `loaded ${uri.fsPath} in ${Date.now() - started} ms: ${result.env?.tasks.length ?? 0} tasks, ${result.problems.length} problems`,
    );
    if (result.env) this.checkStatic(uri.fsPath, result, result.env);
  }

  /**
   * The checks `rlenv validate` runs past the loader (the domain's task checks, the authoring
   * checks) join the loader's problems when done, positioned like them. They need the engine
   * bundle, so they run after the load returns, never inside activation.
   */
  private checkStatic(manifest: string, result: LoadResult, env: Environment): void {
    setImmediate(async () => {
      let problems: Problem[];
      try {
        problems = await loadEngine().staticProblems(env);
      } catch (e) {
        problems = [
          {
            severity: "warning",
            file: manifest,
            line: 1,
            column: 1,
            endLine: 1,
            endColumn: 1,
            path: "domain",
            message: `the static checks of ${env.manifest.name} could not run: ${(e as Error).message}`,
          },
        ];
      }
      // A newer load of this environment replaced this one; its own check reports.
      if (this.entries.get(manifest)?.result !== result || problems.length === 0) return;
      result.problems.push(...problems);
      this.log.debug(`${manifest}: the static checks found ${problems.length} problems`);
      this.changed.fire();
    });
  }

  private onFileEvent(uri: vscode.Uri, created = false): void {
    if (uri.scheme !== "file" || /[/\\](node_modules|\.git|runs)[/\\]/.test(uri.fsPath)) return;
    this.pending.add(uri.fsPath);
    if (created) this.created.add(uri.fsPath);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), 150);
  }

  private flush(): void {
    const files = [...this.pending];
    const created = [...this.created];
    this.pending = new Set();
    this.created = new Set();
    const manifestAppeared = files.some((f) => [MANIFEST_FILE, HARBOR_CONFIG].includes(path.basename(f)) && !this.entries.has(f));
    const manifestGone = files.some((f) => this.entries.has(f) && !existsSync(f));
    // A folder made with its files at once (mkdir -p then writes, a copy, a checkout, an unzip) can reach
    // the watcher as the folder's event alone: inotify watches a new folder only after it exists, so the
    // files written into it before that are never reported. Such a folder may hold a manifest: rescan.
    const folderAppeared = created.some((f) => !BUILD_OUTPUT.test(f) && !this.containing(f) && isFolder(f));
    if (manifestAppeared || manifestGone || folderAppeared) {
      void this.refresh();
      return;
    }
    const reload = new Set<string>();
    for (const f of files) {
      const e = this.containing(f);
      if (e) reload.add(e.manifest.fsPath);
    }
    if (reload.size === 0) return;
    for (const m of reload) {
      const e = this.entries.get(m);
      if (e) this.load(e.manifest);
    }
    this.changed.fire();
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}
