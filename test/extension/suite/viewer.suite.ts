import assert from "node:assert/strict";
import path from "node:path";
import * as vscode from "vscode";
import { EXTENSION_ID, extensionApi, screenshot, sleep, waitFor } from "./helpers";

interface CustomEditorContribution {
  viewType: string;
  selector?: Array<{ filenamePattern?: string }>;
}

suite("trajectory viewer", () => {
  test("a rollout opens in the viewer's custom editor, which reads it through the host", async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as {
      contributes?: { customEditors?: CustomEditorContribution[] };
    };
    const editor = pkg.contributes?.customEditors?.find((c) => c.selector?.some((s) => s.filenamePattern?.includes("jsonl")));
    assert.ok(editor, "package.json contributes the trajectory custom editor for rollout files");
    const { writeRunFixture } = await import("./fixtures");
    const dir = writeRunFixture("2022-01-01T00:00:00.000Z", "run-viewer", 1);
    const file = vscode.Uri.file(path.join(dir, "rollouts", "a-0.jsonl"));
    await vscode.commands.executeCommand("rlenv.openRollout", file.fsPath);
    await waitFor("the viewer tab", () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find(
          (t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === editor.viewType && t.input.uri.fsPath === file.fsPath,
        ),
    );
    // The webview app came up, made the handshake and read the rollout through the host.
    const api = await extensionApi();
    const served = await waitFor("the viewer's requests for the rollout", () =>
      api.viewerRequests(file.fsPath).length > 0 ? api.viewerRequests(file.fsPath) : undefined,
    );
    assert.ok(served.length > 0, `the viewer asked for the rollout (${served.join(", ")})`);
    await sleep(2500); // the webview streams the file in, then draws
    await screenshot("trajectory-viewer");
  });
});
