import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { EXTENSION_ID, extensionApi } from "./helpers";

interface Manifest {
  activationEvents: string[];
  contributes: { commands: Array<{ command: string }> };
}

suite("activation", () => {
  test("activates on the workspace's environment.yaml and starts every feature", async () => {
    const api = await extensionApi();
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext?.isActive, "extension is active");
    console.log(`    start-up took ${api.startMs.toFixed(1)} ms (budget 100 ms)`);
    // The budget holds by what start-up loads, not by a clock: nothing is required beyond the bundle,
    // above all not the rollout engine (dist/extension-engine.js) or a package from node_modules.
    assert.deepEqual(api.requiredAtStart, [], "start-up required no file beyond the extension bundle");
    assert.ok(api.ctx.environments.list().length > 0, "the example environments were found");
  });

  test("never activates on *, only on manifests and its views", () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as Manifest;
    assert.ok(!pkg.activationEvents.includes("*"));
    assert.ok(pkg.activationEvents.includes("workspaceContains:**/environment.yaml"));
  });

  test("registers every command package.json contributes", async () => {
    const repo = process.env.RLENV_REPO ?? vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ?? "";
    const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as Manifest;
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = pkg.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  test("every command is in the one command table, which gates each that executes", async () => {
    const api = await extensionApi();
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as Manifest;
    assert.deepEqual(api.commands.map((c) => c.id).sort(), pkg.contributes.commands.map((c) => c.command).sort());
    const gated: string[] = api.commands.filter((c) => c.executes).map((c) => c.id);
    for (const id of ["rlenv.validate", "rlenv.rollout", "rlenv.debugTask", "rlenv.submitToRunner", "rlenv.debug.openSandboxTerminal"])
      assert.ok(gated.includes(id), `${id} is refused in an untrusted workspace by the table`);
  });
});
