import * as vscode from "vscode";
import type { Settings } from "../settings/settings";
import { dockerAnswers } from "./docker-ping";

const POLL_MS = 30_000;

/** "$(beaker) model · docker ✓": the active policy, the sandbox backend and whether Docker answers. */
export class StatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem("rlenv.status", vscode.StatusBarAlignment.Left, 10);
  private docker: boolean | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly settings: Settings) {
    this.item.name = "RL Env Studio";
    this.item.command = "rlenv.openSettings";
    this.subs = [this.item, vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration("rlenv") && this.render())];
    this.render();
    this.item.show();
    void this.poll();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
  }

  /** Asks Docker again and redraws; returns whether it answered. */
  async poll(): Promise<boolean> {
    this.docker = await dockerAnswers();
    this.render();
    return this.docker;
  }

  private render(): void {
    const backend = this.settings.sandboxBackend();
    const docker = this.docker === undefined ? "…" : this.docker ? "✓" : "✗";
    this.item.text = `$(beaker) ${this.settings.policyLabel()} · ${backend} · docker ${docker}`;
    this.item.tooltip = new vscode.MarkdownString(
      `**RL Env Studio**\n\nPolicy: ${this.settings.policyLabel()}\n\nSandbox backend: ${backend}\n\nDocker: ${this.docker === undefined ? "checking" : this.docker ? "answers" : "does not answer"}\n\nClick to open settings.`,
    );
    this.item.backgroundColor =
      backend === "docker" && this.docker === false ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const s of this.subs) s.dispose();
  }
}
