import * as vscode from "vscode";

/** What the editor remembers of a task's last validation and last rollout. */
export interface TaskResult {
  validation?: { passed: boolean; oracle: number | null; nop: number | null; at: string; message?: string };
  rollout?: { reward: number | null; passed: boolean; at: string; trajectory?: string };
  /** The newest trajectory file of any kind (oracle, nop, policy) for "Open last trajectory". */
  lastTrajectory?: string;
}

const KEY = "rlenv.taskResults.v1";

/** Last results per task, kept in workspace state so views show them after a reload. */
export class ResultsStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when any task's result changed. */
  readonly onDidChange = this.changed.event;
  private readonly data: Record<string, TaskResult>;

  constructor(private readonly state: vscode.Memento) {
    this.data = { ...(state.get<Record<string, TaskResult>>(KEY) ?? {}) };
  }

  static key(envDir: string, taskId: string): string {
    return `${envDir}#${taskId}`;
  }

  get(envDir: string, taskId: string): TaskResult | undefined {
    return this.data[ResultsStore.key(envDir, taskId)];
  }

  update(envDir: string, taskId: string, patch: Partial<TaskResult>): void {
    const k = ResultsStore.key(envDir, taskId);
    this.data[k] = { ...this.data[k], ...patch };
    void this.state.update(KEY, this.data);
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
