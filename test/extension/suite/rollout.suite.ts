import assert from "node:assert/strict";
import * as vscode from "vscode";
import { type ScriptedServer, startScriptedServer } from "../../support/scripted-openai-server";
import { extensionApi, waitFor } from "./helpers";
import { pickValidatable } from "./validatable";

/**
 * The Rollout profile against the one allowed stand-in, a scripted OpenAI-compatible
 * server on loopback: a policy that writes the reference solution passes the threshold,
 * one that submits at once fails it, with the reward in the message.
 */
suite("Rollout profile", () => {
  let server: ScriptedServer | undefined;
  const config = () => vscode.workspace.getConfiguration("rlenv");

  teardown(async () => {
    await server?.close();
    server = undefined;
    await config().update("policy.model", undefined, vscode.ConfigurationTarget.Workspace);
    await config().update("policy.baseUrl", undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand("rlenv.clearApiKey");
  });

  async function rollout(solve: boolean, taskPick: NonNullable<ReturnType<typeof pickValidatable>>) {
    const api = await extensionApi();
    const task = taskPick.entry.result.env?.tasks.find((t) => t.id === taskPick.taskId);
    const files = task?.solution?.files ?? {};
    let turn = 0;
    server = await startScriptedServer(() => {
      turn++;
      if (solve && turn === 1) {
        return {
          reply: {
            content: "Writing the solution.",
            tool_calls: Object.entries(files).map(([path, content]) => ({ name: "write_file", arguments: { path, content } })),
          },
        };
      }
      return { reply: { content: "Done.", tool_calls: [{ name: "submit", arguments: { summary: "done" } }] } };
    });
    await config().update("policy.baseUrl", server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update("policy.model", "scripted-policy", vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand("rlenv.setApiKey", "sk-from-secret-storage");
    const item = api.tests.controller.items.get(taskPick.entry.dir)?.children.get(`${taskPick.entry.dir}#${taskPick.taskId}`);
    assert.ok(item);
    api.tests.lastStates.delete(item.id);
    const cts = new vscode.CancellationTokenSource();
    await api.tests.profiles.rollout.runHandler(new vscode.TestRunRequest([item], undefined, api.tests.profiles.rollout), cts.token);
    return { api, item, requests: server.requests };
  }

  test("a policy that solves the task passes the reward threshold", async function () {
    this.timeout(180_000);
    const pick = pickValidatable(await extensionApi());
    if (!pick?.entry.result.env?.tasks.find((t) => t.id === pick.taskId)?.solution?.files) return this.skip();
    const { api, item, requests } = await rollout(true, pick);
    assert.ok(requests.length >= 2, "the policy was asked at least twice");
    assert.equal(requests[0]?.model, "scripted-policy");
    assert.equal(api.tests.lastStates.get(item.id), "passed");
    const r = api.ctx.results.get(pick.entry.dir, pick.taskId);
    assert.equal(r?.rollout?.reward, 1);
    assert.ok(r?.rollout?.trajectory);
  });

  test("cancelling a Rollout run stops it: tests skipped, the trajectory ends cancelled", async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    const pick = pickValidatable(api);
    if (!pick) return this.skip();
    server = await startScriptedServer([{ hang: true }]);
    await config().update("policy.baseUrl", server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update("policy.model", "scripted-policy", vscode.ConfigurationTarget.Workspace);
    const item = api.tests.controller.items.get(pick.entry.dir)?.children.get(`${pick.entry.dir}#${pick.taskId}`);
    assert.ok(item);
    const cts = new vscode.CancellationTokenSource();
    const running = api.tests.profiles.rollout.runHandler(
      new vscode.TestRunRequest([item], undefined, api.tests.profiles.rollout),
      cts.token,
    );
    const hanging = server;
    await waitFor("the policy request", () => hanging.requests.length > 0, 60_000);
    const cancelledAt = Date.now();
    cts.cancel();
    await running;
    console.log(`    run ended ${Date.now() - cancelledAt} ms after cancel`);
    assert.equal(api.tests.lastStates.get(item.id), "skipped");
    const runs = api.ctx.runs.runs().filter((r) => r.record?.config.policy.kind === "openai");
    const newest = runs[0];
    assert.ok(newest, "the cancelled run was written");
    const { listRollouts, readRolloutSummary } = await import("../../../src/core/runs/run-listing");
    const statuses = listRollouts(newest.dir).map((f) => readRolloutSummary(f).status);
    assert.deepEqual(statuses, ["cancelled"]);
  });

  test("a policy that submits at once fails the threshold, with its reward", async function () {
    this.timeout(180_000);
    const pick = pickValidatable(await extensionApi());
    if (!pick) return this.skip();
    const { api, item } = await rollout(false, pick);
    assert.equal(api.tests.lastStates.get(item.id), "failed");
    assert.equal(api.ctx.results.get(pick.entry.dir, pick.taskId)?.rollout?.reward, 0);
  });
});
