import "../../shared/styles.css";
import { createApi } from "../../shared/api";
import { h } from "../../shared/dom";
import { DashboardApp } from "./app";
import { DashboardMethods } from "./protocol";

/** Entry of the run dashboard bundle: handshake with the host, then the app. */
async function main(): Promise<void> {
  const mount = document.getElementById("app")!;
  const api = createApi(DashboardMethods);
  try {
    const { context, snapshot } = await api.init();
    // The page back before the app is built: the bundle's evaluation and the first render are two tasks, not one.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new DashboardApp(api, context, snapshot, mount).start();
  } catch (err) {
    mount.replaceChildren(
      h("div", { class: "error-banner" }, `Could not open the run: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}
void main();
