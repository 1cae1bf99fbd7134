import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { type SyntheticRollout, writeSyntheticRun } from "../support/synthetic-run";
import { launch, rlenvView, screenshot, watchErrors } from "./support/browser";

/** Eight tasks of eight samples with solve rates 1, ¾, ½, ¼, 0, ½, 1, ⅛; one infra error; adaptive concurrency decisions. */
function demoRun(): string {
  const created = Date.parse("2026-01-01T00:00:00Z");
  const comps = (tests: number) => [
    { name: "tests", weight: 0.8, score: tests },
    { name: "style", weight: 0.2, score: 1 },
  ];
  const tasks = ["fizzbuzz", "parse-dates", "merge-intervals", "lru-cache", "regex-engine", "json-diff", "slugify", "<img src=x>"];
  const rates = [1, 0.75, 0.5, 0.25, 0, 0.5, 1, 0.125];
  const rolls: SyntheticRollout[] = tasks.flatMap((task, i) =>
    Array.from({ length: 8 }, (_, s) => {
      const ok = (s + 0.5) / 8 < rates[i]!;
      return {
        task,
        sample: s,
        reward: ok ? 1 : 0.2,
        components: comps(ok ? 1 : 0),
        status: !ok && s % 3 === 0 ? ("truncated" as const) : ("completed" as const),
        turns: 3 + (s % 4),
        tokens: [1200 + 100 * s, 300 + 20 * s] as [number, number],
        timings: { total_ms: 9000, policy_ms: 5200, sandbox_ms: 2300, verify_ms: 700 },
        startedAt: created + 1000 * (i * 8 + s),
      };
    }),
  );
  rolls.push({ task: "json-diff", sample: 8, reward: null, infra: true, startedAt: created + 64_000 });
  const dir = writeSyntheticRun(mkdtempSync(path.join(tmpdir(), "rlenv-readiness-e2e-")), "run-demo", rolls, 8);
  const limits = [4, 8, 16, 32, 24, 28, 24, 24, 20, 24];
  writeFileSync(
    path.join(dir, "concurrency.jsonl"),
    limits
      .map((limit, i) => JSON.stringify({ t_ms: 6000 * (i + 1), limit, throughput: limit, latency_ms: 100, reason: "test" }))
      .join("\n"),
  );
  return dir;
}

test("dashboard: the Readiness panel shows zero-variance groups, bands, pass@k/pass^k, time split; decisions on the utilisation chart", async () => {
  const view = await rlenvView(demoRun());
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.waitForSelector(".card-readiness-signal");
    // fizzbuzz, regex-engine and slugify score alike in every sample: 3 of 8 groups, 24 of 64 rollouts.
    assert.equal((await page.textContent(".card-readiness-signal .big"))?.trim(), "37.5%");
    assert.match((await page.textContent(".card-readiness-signal")) ?? "", /costing 24 rollouts/);
    assert.equal(await page.textContent("[data-band='learnable']"), "learnable 5");
    assert.equal(await page.textContent("[data-band='always']"), "always 2");
    assert.match((await page.textContent(".card-readiness-signal")) ?? "", /infra errors \(not scored\) 1/);
    // k = 8: pass@8 is the share of tasks solved at least once (7 of 8), pass^8 of those solved every time (2 of 8).
    assert.deepEqual(await page.locator(".card-readiness-pass tbody tr:last-child td").allTextContents(), ["8", "0.875", "0.250"]);
    assert.equal(await page.locator(".card-readiness-time .time-bar span").count(), 4);
    // Each key of the bar stays whole where the card is narrow: its swatch on the line of its name.
    assert.deepEqual(
      await page.$$eval(".card-readiness-time .time-key", (keys) => keys.map((k) => k.getClientRects().length)),
      [1, 1, 1, 1],
    );
    // A task id that looks like markup stays text.
    assert.equal(await page.locator(".card-readiness-tasks img").count(), 0);
    await page.locator(".card-readiness-tasks td", { hasText: "<img src=x>" }).waitFor();
    assert.equal(await page.locator(".card-util polyline.l3").count(), 1);
    await page.locator(".card-readiness-signal").scrollIntoViewIfNeeded();
    const file = await screenshot(page, "dashboard-readiness");
    assert.deepEqual(errors, [], errors.join("\n"));
    console.log(`screenshot: ${file}`);
  } finally {
    await browser.close();
    view.stop();
  }
});
