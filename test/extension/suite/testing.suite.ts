import assert from "node:assert/strict";
import * as vscode from "vscode";
import { examplesDir, extensionApi, screenshot, waitFor } from "./helpers";

suite("Test Explorer", () => {
  test("discovers each environment as a suite and each task as a test at its line", async () => {
    const api = await extensionApi();
    const { controller } = api.tests;
    for (const entry of api.ctx.environments.list().filter((e) => e.dir.startsWith(examplesDir()))) {
      const suiteItem = await waitFor(`suite ${entry.label}`, () => controller.items.get(entry.dir));
      assert.equal(suiteItem.label, entry.label);
      const tasks = entry.result.env?.tasks ?? [];
      assert.equal(suiteItem.children.size, tasks.length);
      for (const t of tasks.slice(0, 3)) {
        const item = suiteItem.children.get(`${entry.dir}#${t.id}`);
        assert.ok(item, `${t.id} is a test`);
        assert.equal(item.uri?.fsPath, t.source.file);
        assert.equal(item.range?.start.line, t.source.line - 1);
      }
    }
  });

  test("a Validate run passes the oracle, fails nop, and records rewards", async function () {
    this.timeout(240_000);
    const api = await extensionApi();
    const { pickValidatable } = await import("./validatable");
    const pick = pickValidatable(api);
    if (!pick) return this.skip();
    const { entry, taskId } = pick;
    const item = api.tests.controller.items.get(entry.dir)?.children.get(`${entry.dir}#${taskId}`);
    assert.ok(item);
    await vscode.commands.executeCommand("workbench.view.testing.focus");
    // Run through the workbench as a user would: the cursor on the task, "Run Test at Cursor" (the default profile is Validate).
    const doc = await vscode.workspace.openTextDocument(item.uri!);
    await vscode.window.showTextDocument(doc, { selection: item.range! });
    await vscode.commands.executeCommand("testing.runAtCursor");
    const state = await waitFor("the test's result", () => api.tests.lastStates.get(item.id), 200_000);
    await api.tests.idle();
    const r = api.ctx.results.get(entry.dir, taskId);
    assert.equal(state, "passed", `validation: ${r?.validation?.message}`);
    assert.ok(r?.validation?.passed);
    assert.equal(r.validation.oracle, 1);
    assert.equal(r.validation.nop, 0);
    assert.ok(r.lastTrajectory, "a trajectory was recorded");
    await vscode.commands.executeCommand("workbench.view.testing.focus");
    await screenshot("test-explorer-after-validate");
    const file = await vscode.commands.executeCommand<string>("rlenv.openLastTrajectory", { envDir: entry.dir, taskId });
    assert.equal(file, r.lastTrajectory);
    await vscode.commands.executeCommand("workbench.view.extension.rlenv");
    await screenshot("views-after-validate");
  });

  test("a Validate from the CodeLens reaches the Test Explorer's item", async function () {
    this.timeout(240_000);
    const api = await extensionApi();
    const { pickValidatable } = await import("./validatable");
    const pick = pickValidatable(api);
    if (!pick) return this.skip();
    const { entry, taskId } = pick;
    const item = api.tests.controller.items.get(entry.dir)?.children.get(`${entry.dir}#${taskId}`);
    assert.ok(item);
    // The command the task's CodeLens carries, with the lens's own argument.
    const doc = await vscode.workspace.openTextDocument(item.uri!);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", doc.uri);
    const lens = lenses.find((l) => l.command?.command === "rlenv.validate" && l.range.start.line === item.range?.start.line);
    assert.ok(lens?.command, "the task's line has a Validate lens");
    api.tests.lastStates.delete(item.id);
    await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
    await api.tests.idle();
    assert.equal(api.tests.lastStates.get(item.id), "passed", "the Test Explorer item carries the CodeLens run's verdict");
    await vscode.window.showTextDocument(doc, { selection: item.range! });
    await vscode.commands.executeCommand("workbench.view.testing.focus");
    await screenshot("test-explorer-after-codelens-validate");
  });
});
