import "../../shared/styles.css";
import { createApi } from "../../shared/api";
import { h } from "../../shared/dom";
import { TrajectoryApp } from "./app";
import { VIEWER_METHODS } from "./protocol";

/** Entry of the trajectory viewer bundle: handshake with the host, then the app. */
async function main(): Promise<void> {
  // When the bundle started running (the benchmark splits load time from data time with it).
  document.body.dataset.scriptStartMs = String(performance.now());
  const mount = document.getElementById("app")!;
  const api = createApi(VIEWER_METHODS);
  try {
    const { context, snapshot } = await api.init();
    await new TrajectoryApp(api, context, snapshot, mount).start();
  } catch (err) {
    mount.replaceChildren(
      h("div", { class: "error-banner" }, `Could not open the trajectory: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}
void main();
