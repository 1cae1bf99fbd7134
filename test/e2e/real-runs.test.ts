import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { missing } from "../support/services";
import { launch, REPO, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * The example environments' real runs: `rlenv run --policy oracle` writes them (the
 * built CLI, as a user runs it), then `rlenv view` opens each in Chromium and the
 * domain's panel must show what the run produced.
 */
const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-real-runs-"));
let browser: Browser;
const servers: ViewProcess[] = [];

function rlenvRun(env: string, runId: string, extra: string[]): SpawnSyncReturns<string> {
  return spawnSync(
    process.execPath,
    [
      path.join(REPO, "dist", "cli.js"),
      "run",
      path.join(REPO, "environments", env),
      "--policy",
      "oracle",
      "--runs",
      runsDir,
      "--run-id",
      runId,
      ...extra,
    ],
    { encoding: "utf8", timeout: 240_000 },
  );
}

/** The run's rollout files, after `rlenv run` succeeded. */
function rollouts(runId: string, r: SpawnSyncReturns<string>): string[] {
  assert.equal(r.status, 0, `rlenv run failed: ${r.stderr}${r.stdout}`);
  const dir = path.join(runsDir, runId, "rollouts");
  return readdirSync(dir)
    .sort()
    .map((f) => path.join(dir, f));
}

async function open(target: string): Promise<{ page: Page; errors: string[] }> {
  const v = await rlenvView(target);
  servers.push(v);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = watchErrors(page);
  await page.goto(v.url);
  await page.waitForSelector(".vrow[data-index='0'], table.rollout-table");
  return { page, errors };
}

describe("example runs in the viewer", { skip: missing("chromium") }, () => {
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("code (code-humaneval, oracle): the Files tab diffs solution.py in Monaco; the dashboard lists the rollouts", {
    skip: missing("docker") || missing("image"),
  }, async () => {
    const files = rollouts("real-code", rlenvRun("code-humaneval", "real-code", ["--tasks", "humaneval-000", "humaneval-001", "-k", "2"]));
    assert.equal(files.length, 4);
    const { page, errors } = await open(files[0]!);
    assert.deepEqual(await page.locator("nav.tabs button").evaluateAll((b) => b.map((x) => x.getAttribute("data-tab"))), [
      "steps",
      "reward",
      "code",
      "compare",
    ]);
    await page.click("button[data-tab='code']");
    await page.waitForSelector(".files .item");
    assert.ok((await page.locator(".files .item").allTextContents()).some((t) => t.endsWith("solution.py")));
    await page.waitForSelector(".monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert", { timeout: 15_000 });
    await screenshot(page, "real-code-diff");
    assert.deepEqual(errors, []);
    const dash = await open(path.join(runsDir, "real-code"));
    await dash.page.waitForSelector("table.rollout-table[aria-busy=false]");
    assert.equal(await dash.page.locator("table.rollout-table tbody tr").count(), 4);
    // The table's first page is answered before the aggregates (pass@k among them): wait for those too.
    const passk = dash.page.locator("table.passk tbody td:first-child");
    for (let i = 0; i < 300 && (await passk.count()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await passk.allTextContents(), ["humaneval-000", "humaneval-001"]);
    await screenshot(dash.page, "real-dashboard");
    assert.deepEqual(dash.errors, []);
  });

  test("3D (scene3d-tabletop, oracle): the scene tab draws the final scene and lists the checks", async () => {
    const files = rollouts("real-scene3d", rlenvRun("scene3d-tabletop", "real-scene3d", ["--tasks", "grouped-lamp", "-k", "1"]));
    const { page, errors } = await open(files[0]!);
    assert.ok(await page.locator("button[data-tab='scene']").count());
    await page.click("button[data-tab='scene']");
    await page.waitForSelector(".scene-canvas canvas");
    await page.locator(".scene-side .obj", { hasText: "shade" }).waitFor();
    const objects = (await page.locator(".scene-side .obj").allTextContents()).map((t) => t.split(" ")[0]);
    assert.deepEqual(objects.sort(), ["base", "lamp", "pole", "shade"]);
    assert.ok((await page.locator(".scene-side .check.pass").count()) >= 3, "the verifier's checks are listed, passed");
    await page.locator(".scene-side .obj", { hasText: "pole" }).click();
    assert.match(String(await page.locator(".scene-side table.props").textContent()), /name\s*pole\s*kind\s*cylinder/);
    await screenshot(page, "real-scene3d");
    assert.deepEqual(errors, []);
  });

  test("document (document-financebench, oracle): the report against the fields verdicts, with its citations", async () => {
    const files = rollouts("real-document", rlenvRun("document-financebench", "real-document", ["--tasks", "fb-00438", "-k", "1"]));
    const { page, errors } = await open(files[0]!);
    assert.ok(await page.locator("button[data-tab='documents']").count());
    await page.click("button[data-tab='documents']");
    await page.waitForSelector(".report pre.json");
    assert.match(String(await page.locator(".report pre.json").textContent()), /"answer"/);
    assert.ok((await page.locator(".report .citation").count()) >= 1, "the report's citations are listed, each as a card");
    await screenshot(page, "real-document");
    assert.deepEqual(errors, []);
  });
});
