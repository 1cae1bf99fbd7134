import * as vscode from "vscode";
import type { Sandbox } from "../../core/model/sandbox";

/** A rollout being debugged whose sandbox is live: what the sandbox terminal, files and console reach. */
export interface LiveRollout {
  /** The debug session's id. */
  readonly id: string;
  /** "code-humaneval · HumanEval/0", for pickers and terminal names. */
  readonly label: string;
  /** The rollout's sandbox (started on first use). */
  sandbox(): Promise<Sandbox>;
}

/**
 * The rollouts under the debugger right now. The debug adapter adds one when its session
 * starts and removes it when the session ends; the sandbox terminal and files commands
 * read it (the active debug session's rollout first).
 */
export class LiveRollouts implements vscode.Disposable {
  private readonly byId = new Map<string, LiveRollout>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  add(r: LiveRollout): vscode.Disposable {
    this.byId.set(r.id, r);
    this.changed.fire();
    return new vscode.Disposable(() => {
      if (this.byId.get(r.id) === r) this.byId.delete(r.id);
      this.changed.fire();
    });
  }

  /** The active debug session's rollout, else the only one, else undefined. */
  current(): LiveRollout | undefined {
    const active = vscode.debug.activeDebugSession?.id;
    if (active && this.byId.has(active)) return this.byId.get(active);
    return this.byId.size === 1 ? [...this.byId.values()][0] : undefined;
  }

  all(): LiveRollout[] {
    return [...this.byId.values()];
  }

  dispose(): void {
    this.byId.clear();
    this.changed.dispose();
  }
}
