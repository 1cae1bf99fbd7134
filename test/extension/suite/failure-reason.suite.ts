import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { extensionApi, screenshot, waitFor, workspaceDir } from "./helpers";

/** A code environment whose hidden-test command names a folder that does not exist (tests_hiden). */
const MANIFEST = `name: typo-env
domain: code
sandbox: { image: rlenv/python:bookworm, timeouts: { step: 30, rollout: 120 } }
tasks: tasks.jsonl
tools: [bash, write_file, submit]
reward:
  - type: tests
    command: python3 -m pytest -q -p no:cacheprovider tests_hiden
    format: pytest
`;
const TASK = {
  id: "add",
  prompt: "Implement add.",
  files: { "solution.py": "def add(a, b):\n    raise NotImplementedError\n" },
  tests: { files: { "tests_hidden/test_add.py": "from solution import add\n\ndef test_small():\n    assert add(1, 2) == 3\n" } },
  solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
};

suite("Failure reasons", () => {
  test("a failed Validate says which reward component fell short and why, in Test Explorer and the Runs view", async function () {
    this.timeout(240_000);
    const dir = path.join(workspaceDir(), "scratch", "typo-env");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "tasks.jsonl"), `${JSON.stringify(TASK)}\n`);
    writeFileSync(path.join(dir, "environment.yaml"), MANIFEST);
    await vscode.commands.executeCommand("rlenv.refreshEnvironments");
    const api = await extensionApi();
    const item = await waitFor("the new environment's task in Test Explorer", () =>
      api.tests.controller.items.get(dir)?.children.get(`${dir}#add`),
    );
    const doc = await vscode.workspace.openTextDocument(item.uri!);
    await vscode.window.showTextDocument(doc, { selection: item.range! });
    await vscode.commands.executeCommand("testing.runAtCursor");
    const state = await waitFor("the test's result", () => api.tests.lastStates.get(item.id), 200_000);
    await api.tests.idle();
    assert.equal(state, "failed");
    const message = api.ctx.results.get(dir, "add")?.validation?.message ?? "";
    assert.match(message, /oracle scored 0, needs ≥ 1 — tests: .* — file or directory not found: tests_hiden/);
    await vscode.commands.executeCommand("workbench.view.testing.focus");
    await vscode.commands.executeCommand("testing.showMostRecentOutput").then(undefined, () => undefined);
    await screenshot("test-explorer-failure-reason");
    await vscode.commands.executeCommand("workbench.view.extension.rlenv");
    await screenshot("runs-view-failure-reason");
  });
});
