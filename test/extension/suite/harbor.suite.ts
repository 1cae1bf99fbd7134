import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { extensionApi, screenshot, waitFor, workspaceDir } from "./helpers";

/** A Harbor task folder whose task.toml misspells a field of [environment] (line 6, "memroy"). */
const TASK_TOML = `version = "1.0"

[agent]
timeout_sec = 120.0

[environment]
memroy = "2G"
cpus = 1
`;

suite("Harbor task folders", () => {
  let dir: string;
  let toml: vscode.Uri;
  suiteSetup(async () => {
    await extensionApi();
    dir = path.join(workspaceDir(), "scratch", "harbor", "answer-file");
    const files: Record<string, string> = {
      "task.toml": TASK_TOML,
      "instruction.md": "Write 42 to /app/answer.txt.\n",
      "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
      "solution/solve.sh": "#!/bin/bash\necho 42 > answer.txt\n",
      "tests/test.sh":
        '#!/bin/bash\n[ "$(cat /app/answer.txt)" = 42 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
      if (rel.endsWith(".sh")) chmodSync(path.join(dir, rel), 0o755);
    }
    toml = vscode.Uri.file(path.join(dir, "task.toml"));
  });

  test("a Harbor task folder is an environment in the Environments view and a suite in Test Explorer", async () => {
    const api = await extensionApi();
    const entry = await waitFor("the Harbor task in the environment index", () => api.ctx.environments.list().find((e) => e.dir === dir));
    assert.equal(entry.manifest.fsPath, toml.fsPath);
    assert.deepEqual(
      entry.result.env?.tasks.map((t) => t.id),
      ["answer-file"],
    );
    const { EnvironmentsTree } = await import("../../../src/extension/environments/tree");
    const tree = new EnvironmentsTree(api.ctx.environments, api.ctx.results);
    const node = (await tree.getChildren()).find((r) => r.kind === "environment" && r.entry.dir === dir);
    assert.ok(node, "the task folder is in the Environments view");
    const tasks = await tree.getChildren(node);
    assert.deepEqual(
      tasks.map((t) => (t.kind === "task" ? t.task.id : "")),
      ["answer-file"],
    );
    tree.dispose();
    const suiteItem = await waitFor("the Harbor task's suite in Test Explorer", () => api.tests.controller.items.get(dir));
    const item = suiteItem.children.get(`${dir}#answer-file`);
    assert.ok(item, "its task is a test");
    assert.equal(item.uri?.fsPath, path.join(dir, "instruction.md"));
  });

  test("task.toml: an unknown field is a diagnostic at its key, and one typed in the buffer shows before saving", async () => {
    const doc = await vscode.workspace.openTextDocument(toml);
    const editor = await vscode.window.showTextDocument(doc);
    const d = await waitFor("a diagnostic on memroy", () =>
      vscode.languages.getDiagnostics(toml).find((x) => x.source === "rlenv" && x.message.includes("memroy")),
    );
    assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(d.message, /unknown field 'memroy' for Harbor's task.toml/);
    assert.equal(doc.getText(d.range), "memroy");
    assert.equal(d.range.start.line, 6);
    // Unsaved text is checked as it is typed: a wrong type is an error at its field.
    await editor.edit((e) => e.insert(new vscode.Position(8, 0), 'build_timeout_sec = "slow"\n'));
    const typed = await waitFor("a diagnostic on build_timeout_sec", () =>
      vscode.languages.getDiagnostics(toml).find((x) => x.message.includes("build_timeout_sec")),
    );
    assert.equal(typed.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(typed.range), "build_timeout_sec");
    assert.equal(typed.range.start.line, 8);
    await screenshot("harbor-task-toml-diagnostics");
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });

  test("task.toml: a rule between fields (a shared verifier with its own image) is a diagnostic at the field it is about", async () => {
    const doc = await vscode.workspace.openTextDocument(toml);
    const editor = await vscode.window.showTextDocument(doc);
    // The whole buffer, whatever an earlier test left in it: os in any case is Harbor's "linux";
    // a shared verifier cannot have [verifier.environment].
    const text = `${TASK_TOML}os = "Linux"\n\n[verifier]\nenvironment_mode = "shared"\n\n[verifier.environment]\ncpus = 2\n`;
    await editor.edit((e) => e.replace(new vscode.Range(0, 0, doc.lineCount, 0), text));
    const d = await waitFor(
      "a diagnostic on environment_mode",
      () => vscode.languages.getDiagnostics(toml).find((x) => x.source === "rlenv" && x.message.includes('is "shared"')),
      30_000,
    ).catch((e: Error) => {
      const seen = vscode.languages.getDiagnostics(toml).map((x) => `${x.range.start.line}: ${x.message}`);
      throw new Error(`${e.message}; the buffer: ${JSON.stringify(doc.getText())}; its diagnostics: ${JSON.stringify(seen)}`);
    });
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(d.range), "environment_mode");
    assert.equal(d.range.start.line, 11);
    assert.match(d.message, /^verifier\.environment_mode: is "shared", but \[verifier\.environment\]/);
    assert.ok(!vscode.languages.getDiagnostics(toml).some((x) => x.range.start.line === 8), 'os = "Linux" is accepted');
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });

  test("task.toml: completion offers the fields of the table the cursor is in, and a hover explains a key", async () => {
    const doc = await vscode.workspace.openTextDocument(toml);
    await vscode.window.showTextDocument(doc);
    const list = await vscode.commands.executeCommand<vscode.CompletionList>(
      "vscode.executeCompletionItemProvider",
      toml,
      new vscode.Position(8, 0),
    );
    const labels = list.items.map((i) => (typeof i.label === "string" ? i.label : i.label.label));
    for (const want of ["memory_mb", "network_mode", "workdir", "storage_mb"]) assert.ok(labels.includes(want), `${want} is offered`);
    assert.ok(!labels.includes("cpus"), "a field the table sets is not offered again");
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", toml, new vscode.Position(3, 3));
    const text = hovers
      .flatMap((h) => h.contents)
      .map((c) => (typeof c === "string" ? c : "value" in c ? c.value : ""))
      .join("\n");
    assert.match(text, /\[agent\]\.timeout_sec/);
    assert.match(text, /Seconds the agent may work/);
  });
});
