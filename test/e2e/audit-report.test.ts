import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { writeAuditFolder } from "../support/audit-report";
import { missing } from "../support/services";
import { writeSyntheticRun } from "../support/synthetic-run";
import { launch, rlenvView, screenshot, watchErrors } from "./support/browser";

const skip = missing("chromium");

test("audit report: verdicts per task, a survivor's diff, a probe finding's trajectory one click away", { skip }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), "rlenv-audit-e2e-"));
  writeAuditFolder(out);
  const view = await rlenvView(out);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.locator(".audit-tasks .task-row").first().waitFor();
    assert.equal(await page.locator(".top .badge.verdict").textContent(), "failed");
    assert.equal(await page.locator(".audit-tasks .task-row").count(), 4);
    assert.equal(await page.locator("[data-count='failed']").textContent(), "failed 2");
    assert.equal(await page.locator("[data-count='not-judged']").textContent(), "not judged 1");
    // A task id that looks like markup stays text.
    assert.equal(await page.locator(".audit img").count(), 0);
    await page.locator(".task-row", { hasText: "<img src=x>" }).waitFor();
    // The first failing task is open: its surviving mutant's diff, lines coloured by kind.
    const detail = page.locator(".task-detail[data-task='stats-mean']");
    await detail.waitFor();
    assert.equal(await detail.locator(".audit-diff .dl.del").textContent(), "-        return 0");
    assert.equal(await detail.locator(".audit-diff .dl.add").textContent(), "+        return 1");
    assert.equal(await detail.locator(".mutation-score").textContent(), "0.75");
    assert.equal(await detail.locator("tr.probe-finding").count(), 1);
    // The flaky task: open it, its backends differ and a missing trajectory says so.
    await page.click(".task-row[data-task='dates']");
    const dates = page.locator(".task-detail[data-task='dates']");
    await dates.waitFor();
    assert.match(String(await dates.textContent()), /docker vs process: differ first difference: component tests: 1\.00 vs 0\.00/);
    assert.equal(await dates.locator(".traj-missing").count(), 1);
    await page.click(".task-row[data-task='dates']");
    await dates.waitFor({ state: "detached" });
    await screenshot(page, "audit-report");
    // Filter by verdict.
    await page.selectOption("select[aria-label='verdict']", "failed");
    await page.locator(".audit-tasks .task-row[data-task='fizzbuzz']").waitFor({ state: "detached" });
    assert.equal(await page.locator(".audit-tasks .task-row").count(), 2);
    // The finding's trajectory opens in the viewer.
    await detail.locator("tr.probe-finding .traj-link").click();
    await page.waitForSelector(".timeline .vrow");
    assert.match(String(await page.locator(".top h1").textContent()), /stats-mean--probe-fake-report · sample 0/);
    assert.deepEqual(errors, [], errors.join("\n"));
  } finally {
    await browser.close();
    view.stop();
  }
});

test("dashboard: the pass@k table shows the audit verdict per task from the audit beside the run", { skip }, async () => {
  const ws = mkdtempSync(path.join(tmpdir(), "rlenv-audit-dash-e2e-"));
  const run = writeSyntheticRun(path.join(ws, "runs"), "run-1", [
    { task: "fizzbuzz", sample: 0, reward: 1 },
    { task: "stats-mean", sample: 0, reward: 1 },
    { task: "dates", sample: 0, reward: 0.5 },
    { task: "unaudited", sample: 0, reward: 0 },
  ]);
  writeAuditFolder(path.join(ws, "rlenv-audit"), "synthetic");
  const view = await rlenvView(run);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.locator(".card-passk td.audit-verdict").first().waitFor();
    const verdict = (task: string) =>
      page.locator(".card-passk tr", { has: page.locator("td", { hasText: task }) }).locator("td.audit-verdict");
    assert.equal(await verdict("fizzbuzz").getAttribute("data-verdict"), "passed");
    assert.equal(await verdict("stats-mean").getAttribute("data-verdict"), "failed");
    assert.match(String(await verdict("stats-mean").getAttribute("title")), /probe fake-report scored 1 on docker/);
    assert.equal(await verdict("unaudited").getAttribute("data-verdict"), "none");
    assert.equal(await page.locator(".top .audit-note .badge").textContent(), "failed");
    await page.locator(".card-passk").scrollIntoViewIfNeeded();
    await screenshot(page, "dashboard-audit-verdict");
    assert.deepEqual(errors, [], errors.join("\n"));
  } finally {
    await browser.close();
    view.stop();
  }
});
