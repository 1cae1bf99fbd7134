import assert from "node:assert/strict";
import { readdirSync, existsSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import { examplesDir, extensionApi, screenshot } from "./helpers";

suite("views", () => {
  test("Environments view lists each example environment with its tasks", async () => {
    const api = await extensionApi();
    const { EnvironmentsTree } = await import("../../../src/extension/environments/tree");
    const tree = new EnvironmentsTree(api.ctx.environments, api.ctx.results);
    const roots = await tree.getChildren();
    const examples = readdirSync(examplesDir()).filter((d) => existsSync(path.join(examplesDir(), d, "environment.yaml")));
    assert.ok(examples.length > 0, "there are example environments");
    for (const name of examples) {
      const dir = path.join(examplesDir(), name);
      const expected = loadEnvironment(dir);
      const node = roots.find((r) => r.kind === "environment" && r.entry.dir === dir);
      assert.ok(node, `${name} is in the tree`);
      const item = tree.getTreeItem(node);
      assert.equal(item.label, expected.env?.manifest.name ?? name);
      const tasks = await tree.getChildren(node);
      assert.deepEqual(
        tasks.map((t) => (t.kind === "task" ? t.task.id : "")),
        (expected.env?.tasks ?? []).map((t) => t.id),
        `${name}'s tasks`,
      );
    }
    tree.dispose();
    await vscode.commands.executeCommand("workbench.view.extension.rlenv");
    await screenshot("environments-view");
  });

  test("CodeLens offers Validate · Rollout · Debug on a manifest and on each task's line", async () => {
    const api = await extensionApi();
    const entry = api.ctx.environments.list().find((e) => e.dir.startsWith(examplesDir()) && (e.result.env?.tasks.length ?? 0) > 0)!;
    const titles = (lenses: vscode.CodeLens[]) => lenses.map((l) => l.command?.title.replace(/^\$\([a-z-]+\) /, ""));
    // The workbench computes lenses on loaded models only: open both documents first.
    await vscode.workspace.openTextDocument(entry.manifest);
    const onManifest = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", entry.manifest);
    assert.deepEqual(titles(onManifest.filter((l) => l.command?.command.startsWith("rlenv."))), ["Validate", "Rollout", "Debug"]);
    const task = entry.result.env!.tasks[0]!;
    await vscode.workspace.openTextDocument(vscode.Uri.file(task.source.file));
    const onTask = (
      await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", vscode.Uri.file(task.source.file))
    ).filter((l) => l.command?.command.startsWith("rlenv."));
    const atLine = onTask.filter((l) => l.range.start.line === task.source.line - 1);
    assert.deepEqual(titles(atLine).slice(0, 3), ["Validate", "Rollout", "Debug"]);
    assert.deepEqual(atLine[0]?.command?.arguments, [{ envDir: entry.dir, taskId: task.id }]);
  });

  test("Runs view lists runs newest first with mean reward and pass@k", async () => {
    const api = await extensionApi();
    const { writeRunFixture } = await import("./fixtures");
    const older = writeRunFixture("2020-01-01T00:00:00.000Z", "run-old", 0.25);
    const newer = writeRunFixture("2024-06-01T00:00:00.000Z", "run-new", 0.75);
    const runs = api.ctx.runs.runs();
    const ids = runs.map((r) => r.id);
    assert.ok(ids.indexOf("run-new") < ids.indexOf("run-old"), `newest first: ${ids.join(", ")}`);
    const items = api.ctx.runs.getChildren().map((n) => api.ctx.runs.getTreeItem(n));
    const item = items.find((i) => i.id === `run:${newer}`);
    assert.match(String(item?.description), /mean 0\.75 · pass@1 0\.50 · 2 rollouts/);
    const rollouts = api.ctx.runs.getChildren({ kind: "run", run: runs.find((r) => r.id === "run-new")! });
    assert.equal(rollouts.length, 2);
    assert.ok(older);
  });
});
