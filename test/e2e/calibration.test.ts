import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { calibrateEnvironment } from "../../src/core/app/calibrate-environment";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";
import { launch, rlenvView, screenshot, watchErrors } from "./support/browser";

const skip = missing("chromium");

const ENV = {
  "environment.yaml":
    "name: calibrate-view\ndomain: custom\ntasks: tasks.jsonl\nreward:\n  - type: fields\n    name: figure\n    fields:\n      answer: { comparator: auto }\n",
  "tasks.jsonl": [
    { id: "rev", prompt: "By how much did revenue grow?", target: { answer: "$5,818 million" } },
    { id: "margin", prompt: "What was the margin?", target: { answer: "30.8%" } },
  ]
    .map((t) => JSON.stringify(t))
    .join("\n"),
};

test("dashboard: a calibration run shows its rates, matrix, breakdown and disagreements; a model's markup stays text", {
  skip,
}, async () => {
  const envDir = makeEnvDir(ENV);
  const work = mkdtempSync(path.join(tmpdir(), "rlenv-calibrate-view-"));
  const labels = path.join(work, "labels.jsonl");
  const lines = [
    { task: "rev", answer: "$5,818 million", verdict: "accept", group: "model-a" },
    { task: "margin", answer: "30.8%", verdict: "accept", group: "model-a" },
    { task: "rev", answer: "$6,100 million <img src=x>", verdict: "accept", group: "model-b" },
    { task: "margin", answer: "30.8%", verdict: "Incorrect Answer", group: "model-b" },
    { task: "rev", answer: "$7,000 million", verdict: "reject", group: "model-b" },
    { task: "rev", answer: "$1 million", verdict: "wrongish" },
  ];
  writeFileSync(labels, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const { env } = loadEnvironment(envDir.dir);
  assert.ok(env);
  const { runDir } = await calibrateEnvironment({
    env,
    labelsFile: labels,
    accept: { scoreAt: 1 },
    runsDir: path.join(work, "runs"),
    sandbox: "process",
  });
  assert.ok(runDir);
  const view = await rlenvView(runDir);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.locator(".calibration .cal-false-accept .big").waitFor();
    assert.equal(await page.locator(".calibration .cal-false-accept .big").textContent(), "50.0%");
    assert.equal(await page.locator(".calibration .cal-false-reject .big").textContent(), "33.3%");
    assert.equal(await page.locator(".cal-confusion [data-cell='false-accept']").textContent(), "1");
    assert.equal(await page.locator(".cal-confusion [data-cell='false-reject']").textContent(), "1");
    assert.deepEqual(await page.locator(".cal-breakdown tr[data-scope='group'] td:nth-child(2)").allTextContents(), ["model-a", "model-b"]);
    assert.equal(await page.locator("tr.cal-disagreement").count(), 2);
    // The answer a model wrote is shown as text, never as markup.
    assert.equal(await page.locator(".calibration img").count(), 0);
    assert.match(String(await page.locator("tr.cal-disagreement[data-kind='false-reject']").textContent()), /\$6,100 million <img src=x>/);
    assert.match(String(await page.locator(".calibration details").first().textContent()), /1 bad labels/);
    await page.selectOption("select[aria-label='disagreement kind']", "false-accept");
    await page.locator("tr.cal-disagreement[data-kind='false-reject']").waitFor({ state: "detached" });
    await page.selectOption("select[aria-label='disagreement kind']", "");
    await page.locator("tr.cal-disagreement[data-kind='false-reject']").waitFor();
    await screenshot(page, "dashboard-calibration");
    // A disagreement's rollout opens in the trajectory viewer.
    await page.locator("tr.cal-disagreement[data-kind='false-accept'] .traj-link").click();
    await page.waitForSelector(".timeline .vrow");
    assert.match(String(await page.locator(".top h1").textContent()), /margin/);
    assert.deepEqual(errors, [], errors.join("\n"));
  } finally {
    await browser.close();
    view.stop();
    envDir.cleanup();
  }
});
