import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { LoadedTask } from "../../core/model/environment";
import { HumanActionError, HumanPolicy } from "../../core/policy/human";
import { renderPage } from "../../core/view/page";
import { PlayFromApp, type PlayFromHost, type PlayState } from "../../core/view/protocol/play";
import { bundleRoot, webviewOptions } from "../viewer/webview-host";
import { toPlayMessages, toPlayTools } from "./convert";

export interface PlayResult {
  status: string;
  reward: number | null;
  reason?: string;
  file: string;
}

/**
 * The "Play Task" panel: shows a HumanPolicy's requests and turns the person's moves into
 * its answers. Every webview message is parsed (PlayFromApp); `receive` is the one door in,
 * for the webview and for the extension-host tests alike.
 */
export class PlayPanel implements vscode.Disposable {
  readonly policy = new HumanPolicy();
  readonly panel: vscode.WebviewPanel;
  private state: PlayState;
  private readonly stopped = new vscode.EventEmitter<void>();
  /** The user pressed Stop or closed the panel. */
  readonly onDidStop = this.stopped.event;
  private readonly subs: vscode.Disposable[] = [];
  private disposed = false;
  /** The webview's app has started and asked for the state (tests wait for it before a screenshot). */
  webviewReady = false;

  constructor(
    extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    env: Environment,
    task: LoadedTask,
  ) {
    const title = `${env.manifest.name} · ${task.id}`;
    this.state = { title, phase: "starting", turn: 0, maxTurns: task.max_turns ?? env.manifest.max_turns, messages: [], tools: [] };
    this.panel = vscode.window.createWebviewPanel("rlenv.playTask", `Play: ${task.id}`, vscode.ViewColumn.Active, {
      ...webviewOptions(extension),
      retainContextWhenHidden: true,
    });
    const asset = (name: string) => this.panel.webview.asWebviewUri(vscode.Uri.joinPath(bundleRoot(extension), name)).toString();
    this.panel.webview.html = renderPage({
      app: "play",
      title: `Play ${title}`,
      cspSource: this.panel.webview.cspSource,
      scriptUri: asset("play.js"),
      styleUri: asset("play.css"),
      backend: "webview",
    });
    this.subs.push(
      this.panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
      this.panel.onDidDispose(() => {
        this.disposed = true;
        this.policy.cancel(new Error("cancelled: the Play Task panel was closed"));
        this.stopped.fire();
        this.dispose();
      }),
    );
    this.policy.onRequest((r) => {
      if (r)
        this.update({
          phase: "your-turn",
          turn: r.turn,
          messages: toPlayMessages(r.messages),
          tools: toPlayTools(r.tools),
          notice: undefined,
        });
      else if (this.state.phase === "your-turn") this.update({ phase: "running", notice: undefined });
    });
  }

  /** The state the panel shows now (tests read it). */
  current(): PlayState {
    return this.state;
  }

  /** A message from the webview (or a test), parsed; a malformed one is logged and dropped. */
  receive(raw: unknown): void {
    const parsed = PlayFromApp.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`play task: ignored a malformed message: ${parsed.error.issues[0]?.message}`);
      return;
    }
    const m = parsed.data;
    switch (m.kind) {
      case "ready":
        this.webviewReady = true;
        this.post();
        return;
      case "move":
        try {
          const a = m.action;
          this.policy.answer(
            a.kind === "message"
              ? a
              : { kind: "tool", name: a.name, arguments: a.arguments, ...(a.content !== undefined ? { content: a.content } : {}) },
          );
        } catch (e) {
          if (!(e instanceof HumanActionError)) throw e;
          this.update({ notice: `Move refused: ${e.message}` });
        }
        return;
      case "stop":
        this.stopped.fire();
        return;
      case "openTrajectory":
        if (this.state.result) void vscode.commands.executeCommand("rlenv.openTrajectory", vscode.Uri.file(this.state.result.file));
        return;
    }
  }

  /** The rollout ended: show its status and reward, and where its trajectory is. */
  finish(result: PlayResult | null, failure?: string): void {
    this.update({
      phase: result && result.status !== "error" ? "finished" : "failed",
      ...(result ? { result } : {}),
      ...(failure ? { notice: failure } : {}),
    });
  }

  update(patch: Partial<PlayState>): void {
    this.state = { ...this.state, ...patch };
    if (patch.notice === undefined && "notice" in patch) delete this.state.notice;
    this.post();
  }

  private post(): void {
    if (this.disposed) return;
    const m: PlayFromHost = { kind: "state", state: this.state };
    void this.panel.webview.postMessage(m);
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    this.stopped.dispose();
    if (!this.disposed) {
      this.disposed = true;
      this.panel.dispose();
    }
  }
}
