import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { extensionApi, screenshot, waitFor, workspaceDir } from "./helpers";

suite("untrusted workspace", () => {
  test("the workspace is in restricted mode and the extension still starts", async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await extensionApi();
    assert.ok(api.ctx.environments.list().length > 0, "environments are listed");
  });

  test("Validate and Rollout refuse to run, and say why", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list()[0]!;
    const runs = path.join(workspaceDir(), "runs");
    for (const cmd of ["rlenv.validate", "rlenv.rollout", "rlenv.debug", "rlenv.playTask"]) {
      const r = await vscode.commands.executeCommand(cmd, { envDir: entry.dir, taskId: entry.result.env?.tasks[0]?.id });
      assert.deepEqual(r, { refused: "untrusted workspace" }, cmd);
    }
    assert.ok(!existsSync(runs) || readdirSync(runs).length === 0, "no run was written");
    await vscode.commands.executeCommand("workbench.view.extension.rlenv");
    await vscode.commands.executeCommand("notifications.showList");
    await screenshot("untrusted-refusal");
    await vscode.commands.executeCommand("notifications.hideList");
  });

  // (vscode.debug.startDebugging itself is held by VS Code's own trust request here, a modal a test cannot answer.)
  test("the rollout debugger's one-click start refuses to run", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list()[0]!;
    const taskId = entry.result.env?.tasks[0]?.id ?? "t";
    assert.equal(await vscode.commands.executeCommand("rlenv.debugTask", { envDir: entry.dir, taskId }), false);
    assert.equal(vscode.debug.activeDebugSession, undefined);
  });

  test("Test Explorer runs skip every test instead of executing", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list()[0]!;
    const item = await waitFor("a test item", () => api.tests.controller.items.get(entry.dir));
    const cts = new vscode.CancellationTokenSource();
    await api.tests.profiles.validate.runHandler(new vscode.TestRunRequest([item], undefined, api.tests.profiles.validate), cts.token);
    const children = [...item.children].map(([, t]) => t);
    assert.ok(children.length > 0);
    assert.deepEqual(new Set(children.map((t) => api.tests.lastStates.get(t.id))), new Set(["skipped"]));
  });

  test("diagnostics still work without trust", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list()[0]!;
    const doc = await vscode.workspace.openTextDocument(entry.manifest);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), "unknown_top_level_field: 1\n"));
    await waitFor("a diagnostic", () =>
      vscode.languages.getDiagnostics(entry.manifest).some((d) => d.message.includes("unknown_top_level_field")),
    );
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });
});
