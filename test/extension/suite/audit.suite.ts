import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { examplesDir, extensionApi, screenshot, waitFor } from "./helpers";

suite("Test Explorer: Audit", () => {
  test("the Audit profile runs rlenv audit's engine and shows its verdict per task, with audit.json written", async function () {
    this.timeout(300_000);
    const api = await extensionApi();
    const envDir = path.join(examplesDir(), "scene3d-tabletop");
    const ids = ["red-cup-on-table", "grouped-lamp"].map((t) => `${envDir}#${t}`);
    const suiteItem = await waitFor("the tabletop suite", () => api.tests.controller.items.get(envDir));
    const items = ids.map((id) => suiteItem.children.get(id));
    assert.ok(items.every(Boolean), "both tasks are tests");
    for (const id of ids) api.tests.lastStates.delete(id);
    const profile = api.tests.profiles.audit;
    assert.equal(profile.label, "Audit");
    const cts = new vscode.CancellationTokenSource();
    await profile.runHandler(new vscode.TestRunRequest(items as vscode.TestItem[], [], profile), cts.token);
    await api.tests.idle();
    for (const id of ids) assert.equal(api.tests.lastStates.get(id), "passed", `${id} passes its audit`);
    const out = path.join(api.ctx.settings.runsDir(vscode.workspace.workspaceFolders![0]!).fsPath, "audit", "scene3d-tabletop");
    const report = JSON.parse(readFileSync(path.join(out, "audit.json"), "utf8")) as {
      ok: boolean;
      environments: Array<{ tasks: Array<{ id: string; mutation: { killed: number; survived: number } | null; probes: unknown[] }> }>;
    };
    assert.equal(report.ok, true);
    const tasks = report.environments[0]?.tasks ?? [];
    assert.deepEqual(tasks.map((t) => t.id).sort(), ["grouped-lamp", "red-cup-on-table"]);
    // The same engine as the CLI: wrong scenes were played and rejected, and probes ran.
    for (const t of tasks) {
      assert.ok((t.mutation?.killed ?? 0) > 0, `${t.id}: wrong scenes were rejected`);
      assert.equal(t.mutation?.survived, 0);
      assert.ok(t.probes.length > 0);
    }
    assert.ok(existsSync(path.join(out, "audit.md")));
    await vscode.commands.executeCommand("workbench.view.testing.focus");
    await screenshot("test-explorer-after-audit");
  });
});
