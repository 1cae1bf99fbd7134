import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { examplesDir, extensionApi, waitFor, workspaceDir } from "./helpers";

suite("commands", () => {
  test("New Environment writes a template for each domain that loads without problems", async () => {
    const api = await extensionApi();
    for (const domain of ["code", "scene3d", "document"]) {
      const dir = await vscode.commands.executeCommand<string>("rlenv.newEnvironment", {
        domain,
        name: `new-${domain}`,
        parent: path.join(workspaceDir(), "scratch"),
      });
      assert.equal(dir, path.join(workspaceDir(), "scratch", `new-${domain}`));
      assert.ok(existsSync(path.join(dir, "environment.yaml")));
      const entry = await waitFor(`${domain} environment indexed`, () => api.ctx.environments.get(dir));
      assert.deepEqual(
        entry.result.problems.map((p) => p.message),
        [],
        `${domain} template has no problems`,
      );
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, path.join(dir, "environment.yaml"));
    }
  });

  test("Open Task opens the task's file at its line", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list().find((e) => e.dir.startsWith(examplesDir()) && (e.result.env?.tasks.length ?? 0) > 1)!;
    const task = entry.result.env!.tasks[1]!;
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>("rlenv.openTask", { envDir: entry.dir, taskId: task.id });
    assert.equal(editor.document.uri.fsPath, task.source.file);
    assert.equal(editor.selection.active.line, task.source.line - 1);
  });

  test("Reveal, refresh, log and settings commands run", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list()[0]!;
    await vscode.commands.executeCommand("rlenv.revealEnvironment", { envDir: entry.dir });
    await vscode.commands.executeCommand("rlenv.refreshEnvironments");
    assert.ok(api.ctx.environments.list().length > 0);
    await vscode.commands.executeCommand("rlenv.refreshRuns");
    await vscode.commands.executeCommand("rlenv.showLog");
    await vscode.commands.executeCommand("rlenv.openSettings");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("the API key goes to SecretStorage, not to settings", async () => {
    const api = await extensionApi();
    assert.equal(await vscode.commands.executeCommand("rlenv.setApiKey", "sk-test-123"), true);
    assert.equal(await api.ctx.settings.apiKey(), "sk-test-123");
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration("rlenv")).includes("sk-test-123"));
    await vscode.commands.executeCommand("rlenv.clearApiKey");
    assert.equal(await api.ctx.settings.apiKey(), undefined);
  });

  test("Rollout without a configured model says why and runs nothing", async () => {
    const api = await extensionApi();
    assert.equal(api.ctx.settings.policy().ok, false);
    const entry = api.ctx.environments.list()[0]!;
    const r = await vscode.commands.executeCommand("rlenv.rollout", { envDir: entry.dir });
    assert.equal(r, undefined);
  });

  test("Debug hands over to rlenv.debugTask", async () => {
    const api = await extensionApi();
    // An environment that loads (earlier tests leave broken ones in scratch/).
    const entry = api.ctx.environments.list().find((e) => e.result.env && e.result.problems.length === 0)!;
    const r = await vscode.commands.executeCommand<unknown>("rlenv.debug", { envDir: entry.dir, taskId: entry.result.env?.tasks[0]?.id });
    // A real session started (paused on entry): stop it so it does not outlive this test.
    assert.equal(r, true);
    const session = await waitFor("the rlenv debug session", () =>
      vscode.debug.activeDebugSession?.type === "rlenv" ? vscode.debug.activeDebugSession : undefined,
    );
    await vscode.debug.stopDebugging(session);
  });

  test("Open Run and Open Rollout open the run's summary and trajectory", async () => {
    const { writeRunFixture } = await import("./fixtures");
    const dir = writeRunFixture("2023-01-01T00:00:00.000Z", "run-cmd", 0.5);
    await vscode.commands.executeCommand("rlenv.openRun", dir);
    const file = path.join(dir, "rollouts", "a-0.jsonl");
    await vscode.commands.executeCommand("rlenv.openRollout", file);
    const registered = await vscode.commands.getCommands(true);
    if (!registered.includes("rlenv.openTrajectory")) {
      assert.equal(vscode.window.activeTextEditor?.document.getText(), readFileSync(file, "utf8"));
    }
  });

  test("the status bar names the policy and the sandbox backend", async () => {
    const api = await extensionApi();
    await vscode.workspace.getConfiguration("rlenv").update("policy.model", "qwen-test", vscode.ConfigurationTarget.Workspace);
    try {
      assert.equal(api.ctx.settings.policyLabel(), "qwen-test");
      const policy = api.ctx.settings.policy();
      assert.ok(policy.ok && policy.policy.model === "qwen-test" && policy.policy.kind === "openai");
    } finally {
      await vscode.workspace.getConfiguration("rlenv").update("policy.model", undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
