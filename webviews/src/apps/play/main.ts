import "../../shared/styles.css";
import "./play.css";
import { h } from "../../shared/dom";
import { PlayApp } from "./app";
import { type PlayFromApp, PlayFromHost } from "./protocol";

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** Entry of the Play Task bundle: every host message is parsed; the app announces itself with ready. */
function main(): void {
  const mount = document.getElementById("app")!;
  try {
    const vscode = acquireVsCodeApi();
    const saved = vscode.getState();
    const post = (m: PlayFromApp) => vscode.postMessage(m);
    const app = new PlayApp(
      mount,
      post,
      (snap) => vscode.setState(snap),
      saved && typeof saved === "object" ? (saved as { selected?: string }) : null,
    );
    window.addEventListener("message", (ev: MessageEvent<unknown>) => {
      const parsed = PlayFromHost.safeParse(ev.data);
      if (!parsed.success) return console.warn("ignored a malformed host message", parsed.error.issues[0]);
      app.show(parsed.data.state);
    });
    post({ kind: "ready" });
  } catch (err) {
    mount.replaceChildren(
      h("div", { class: "error-banner" }, `Could not open the Play Task panel: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}
main();
