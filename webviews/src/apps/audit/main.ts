import "../../shared/styles.css";
import "./audit.css";
import { createApi } from "../../shared/api";
import { h } from "../../shared/dom";
import { AuditApp } from "./app";
import { AuditMethods } from "./protocol";

/** Entry of the audit report bundle: handshake with the host, then the app. */
async function main(): Promise<void> {
  const mount = document.getElementById("app")!;
  const api = createApi(AuditMethods);
  try {
    const { context, snapshot } = await api.init();
    await new AuditApp(api, context, snapshot, mount).start();
  } catch (err) {
    mount.replaceChildren(
      h("div", { class: "error-banner" }, `Could not open the audit report: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}
void main();
