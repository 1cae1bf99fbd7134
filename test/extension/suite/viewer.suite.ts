import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { EXTENSION_ID, extensionApi, inWebviews, screenshot, sleep, waitFor } from "./helpers";

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

  test("the Files tab shows the agent's change as a diff: lines removed and added, in the webview", async function () {
    const { writeRunFixture, trajectoryWithDiff } = await import("./fixtures");
    const dir = writeRunFixture("2022-01-04T00:00:00.000Z", "run-diff", 1);
    const file = path.join(dir, "rollouts", "diff-0.jsonl");
    writeFileSync(file, trajectoryWithDiff("run-diff", "diff-0"));
    await vscode.commands.executeCommand("rlenv.openRollout", file);
    const app = 'body[data-app="trajectory"]';
    const tab = `${app} button[data-tab="code"]`;
    // Without a page to look into (the test-electron harness) there is nothing to see here.
    if ((await inWebviews(tab)) === null) return this.skip();
    await waitFor("the viewer's Files tab", async () => ((await inWebviews(tab)) ?? 0) > 0);
    await inWebviews(tab, true);
    await waitFor("the diff asked for", async () => (await served(file, "diff"))[0]);
    // The modified file (an added one is drawn without the worker: its original side is empty).
    const modified = `${app} .files .item:has-text("solution.py")`;
    await waitFor("solution.py in the file list", async () => ((await inWebviews(modified)) ?? 0) > 0);
    await inWebviews(modified, true);
    // Monaco draws a changed line red on the left and green on the right only once its
    // worker has computed the diff: both files' lines, not just the two texts side by side.
    const removed = await waitFor("removed lines drawn", async () => (await inWebviews(`${app} .line-delete`)) || undefined, 20_000);
    const added = await waitFor("added lines drawn", async () => (await inWebviews(`${app} .line-insert`)) || undefined);
    assert.ok(removed > 0 && added > 0, `removed ${removed}, added ${added}`);
    assert.ok(((await inWebviews(`${app} .char-insert`)) ?? 0) > 0, "the changed characters are marked");
    await screenshot("trajectory-files-diff");
  });

  test("opening a run's dashboard again brings its panel forward instead of a second one; the sidebar as a newcomer sees it", async () => {
    const { writeRunFixture } = await import("./fixtures");
    const dir = writeRunFixture("2022-01-05T09:14:00.000Z", "run-twice", 0.5);
    const dashboards = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter(
          (t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes("rlenv.dashboard") && t.label === "Run run-twice",
        );
    await vscode.commands.executeCommand("rlenv.openRun", dir);
    await waitFor("the dashboard", () => dashboards().length > 0);
    await vscode.commands.executeCommand("workbench.action.files.newUntitledFile");
    await vscode.commands.executeCommand("rlenv.openRun", dir);
    await waitFor("the dashboard brought forward", () => dashboards().some((t) => t.isActive));
    assert.equal(dashboards().length, 1, "one dashboard per run");
    await vscode.commands.executeCommand("workbench.view.extension.rlenv");
    await sleep(1500);
    await screenshot("rlenv-sidebar-runners-welcome");
  });

  /** The requests the viewer's host answered for a file, as [method, params]. */
  async function served(file: string, method: string): Promise<Array<Record<string, unknown>>> {
    const api = await extensionApi();
    return api
      .viewerRequests(file)
      .filter((r) => r.startsWith(`${method} `))
      .map((r) => JSON.parse(r.slice(method.length + 1)) as Record<string, unknown>);
  }

  const panelTab = (label: string) =>
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes("rlenv.trajectoryPanel") && t.label === label);

  test("the dashboard's compare of four rollouts opens one panel that aligns all four", async () => {
    const { writeRunFixture, trajectoryLines } = await import("./fixtures");
    const dir = writeRunFixture("2022-01-02T00:00:00.000Z", "run-compare-four", 1);
    for (const id of ["c-0", "d-0"])
      writeFileSync(path.join(dir, "rollouts", `${id}.jsonl`), trajectoryLines("run-compare-four", id, id[0]!, 0.5));
    const [a, b, c, d] = ["a-0", "b-0", "c-0", "d-0"].map((id) => path.join(dir, "rollouts", `${id}.jsonl`));
    // What the webview host passes on when the dashboard asks to open a compare (its `open` message).
    await vscode.commands.executeCommand("rlenv.openTrajectory", { file: a, compare: b, more: [c, d] });
    await waitFor("the compare panel naming all four", () => panelTab("Compare a-0.jsonl · b-0.jsonl · c-0.jsonl · d-0.jsonl"));
    const align = await waitFor("the four-way alignment request", async () => (await served(a!, "align"))[0]);
    assert.deepEqual(align.files, ["rollouts/a-0.jsonl", "rollouts/b-0.jsonl", "rollouts/c-0.jsonl", "rollouts/d-0.jsonl"]);
    await sleep(1500); // the panel draws the aligned steps
    await screenshot("trajectory-compare-four");
  });

  test("rlenv.openAuditReport opens an audit folder's report in a panel that reads it through the host", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { writeAuditFolder } = await import("../../support/audit-report");
    const out = mkdtempSync(path.join(tmpdir(), "rlenv-ext-audit-"));
    const { file } = writeAuditFolder(out);
    await vscode.commands.executeCommand("rlenv.openAuditReport", vscode.Uri.file(out));
    await waitFor("the audit report panel", () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find(
          (t) =>
            t.input instanceof vscode.TabInputWebview &&
            t.input.viewType.includes("rlenv.auditReport") &&
            t.label === `Audit ${path.basename(out)}`,
        ),
    );
    const asked = await waitFor("the report asked for", async () => (await served(file, "audit"))[0]);
    assert.deepEqual(asked, { file: "audit.json" });
    await sleep(1500); // the panel draws the task table
    await screenshot("audit-report-panel");
  });

  test("a search hit opens its rollout at the hit's step", async () => {
    const { writeRunFixture } = await import("./fixtures");
    const dir = writeRunFixture("2022-01-03T00:00:00.000Z", "run-search-hit", 1);
    const file = path.join(dir, "rollouts", "b-0.jsonl");
    await vscode.commands.executeCommand("rlenv.openTrajectory", { file, row: 2 });
    await waitFor("the panel of the hit's rollout", () => panelTab("b-0.jsonl"));
    const steps = await waitFor("the hit's step asked for", async () => {
      const s = await served(file, "step");
      return s.length ? s : undefined;
    });
    assert.deepEqual(
      steps.map((s) => s.row),
      [2],
      "the panel opens at the hit's step, not at the first",
    );
    await sleep(1500);
    await screenshot("trajectory-search-hit-step");
  });
});
