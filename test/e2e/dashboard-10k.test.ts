import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type LargeRolloutFacts, type LargeRunSpec, largeRolloutFacts, writeLargeRun } from "../fixtures/large-run";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * The dashboard of a 10,000-rollout run in Debian's Chromium through `rlenv view` (the built CLI).
 * The rows stay on the server's side and the table asks for the pages in view: every row must
 * still be reachable by scrolling, sorting and filtering must cover every rollout, and the cards'
 * aggregates (statuses, mean reward, the reward histogram, pass@k) must count every rollout, opened
 * with an empty summary cache and again from the cache a first open left.
 */
const skip = missing("chromium");
const SPEC: LargeRunSpec = { rollouts: 10_000, tasks: 500 };
const natural = new Intl.Collator(undefined, { numeric: true }).compare;
let browser: Browser;
let run: string;
let facts: LargeRolloutFacts[];
const servers: ViewProcess[] = [];

const counter = (page: Page) => page.locator(".rollouts .toolbar .meta-item").first();
const ids = (page: Page) => page.locator("table.rollout-table tbody tr[data-file] td:nth-child(2)").allTextContents();

/** Scrolls the table's box so row `i` (0-based) is at its top, and waits for that row to be drawn with its rollout. */
async function scrollTo(page: Page, i: number, id: string): Promise<void> {
  await page.locator(".rollouts .vt-scroll").evaluate((el, row) => {
    const first = el.querySelector("tbody tr");
    const h = first ? first.getBoundingClientRect().height : 29;
    el.scrollTop = row * h;
  }, i);
  await page
    .locator("table.rollout-table tbody tr[data-file] td:nth-child(2)", { hasText: new RegExp(`^${id}$`) })
    .waitFor({ timeout: 30_000 });
}

async function open(): Promise<{ page: Page; errors: string[] }> {
  const v = await rlenvView(run);
  servers.push(v);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(v.url);
  await counter(page).filter({ hasText: "10,000 of 10,000 rollouts" }).waitFor({ timeout: 240_000 });
  return { page, errors };
}

describe("a 10,000-rollout dashboard in Chromium", { skip }, () => {
  before(async () => {
    const root = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-10k-"));
    // The view's summary cache, of this test's own (the spawned `rlenv view` inherits it).
    process.env.RLENV_CACHE_DIR = path.join(root, "cache");
    run = writeLargeRun(path.join(root, "run"), SPEC);
    facts = Array.from({ length: SPEC.rollouts }, (_, k) => largeRolloutFacts(k, SPEC));
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("opens with a screenful of rows; aggregates, scrolling, sorting and filtering cover every rollout", {
    timeout: 600_000,
  }, async () => {
    const { page, errors } = await open();
    const drawn = await page.locator("table.rollout-table tbody tr").count();
    assert.ok(drawn > 10 && drawn < 100, `only the rows in view are drawn (${drawn})`);

    // The cards count every rollout, not the rows the page holds.
    assert.equal(await page.locator(".card-status .big").textContent(), "10000");
    const byStatus = new Map<string, number>();
    for (const f of facts) byStatus.set(f.status, (byStatus.get(f.status) ?? 0) + 1);
    for (const [status, n] of byStatus)
      assert.equal(await page.locator(`.card-status .badge[data-status=${status}]`).textContent(), `${status} ${n}`);
    const mean = facts.reduce((s, f) => s + f.reward, 0) / facts.length;
    assert.equal(await page.locator(".mean-reward").textContent(), mean.toFixed(2));
    const bars = await page.locator(".card-rewards rect title").allTextContents();
    assert.equal(
      bars.reduce((s, t) => s + Number(t.split(": ")[1]), 0),
      SPEC.rollouts,
      "the reward histogram holds every rollout",
    );
    // The pass@k table draws its rows in the frame after its card is made, which may be after the
    // rollouts' counter shows its total: wait for its first row before reading it.
    const firstRow = page.locator(".card-passk tbody tr").first();
    await firstRow.locator("td").first().waitFor();
    const firstTask = await firstRow.locator("td").allTextContents();
    assert.equal(firstTask[0], "task-0000");
    assert.equal(Number(firstTask[1]), SPEC.rollouts / SPEC.tasks, "pass@k's n counts every sample of the task");
    await screenshot(page, "dashboard-10k-top");
    // Every pass@k header shows whole (none cut to "pass@…"), and every count over a histogram bar lies inside its chart.
    const heads = await page.evaluate<Array<[string, boolean]>>(
      `[...document.querySelectorAll(".card-passk th, .card-passk tbody tr:first-child td")].map((c) => [c.textContent, c.scrollWidth > c.clientWidth])`,
    );
    assert.ok(heads.filter(([t]) => t.startsWith("pass@")).length >= 3, `pass@k columns: ${heads.map(([t]) => t).join(", ")}`);
    assert.deepEqual(
      heads.filter(([, cut]) => cut).map(([t]) => t),
      [],
      "no pass@k header is cut",
    );
    const labels = await page.evaluate<Array<[string, boolean]>>(
      `[...document.querySelectorAll("svg.chart")].flatMap((chart) => {
        const v = chart.viewBox.baseVal;
        const boxes = [...chart.querySelectorAll("text.count")].map((t) => [t.textContent, t.getBBox()]);
        return boxes.map(([text, b], i) => {
          const next = boxes[i + 1]?.[1];
          return [text, b.x >= 0 && b.y >= 0 && b.x + b.width <= v.width && b.y + b.height <= v.height && (!next || b.x + b.width <= next.x)];
        });
      })`,
    );
    assert.ok(labels.length >= 10, "the histograms' bars carry their counts");
    assert.deepEqual(
      labels.filter(([, inside]) => !inside).map(([t]) => t),
      [],
      "every bar's count lies inside its chart, clear of the next one",
    );
    await page.locator(".rollouts").scrollIntoViewIfNeeded();
    await screenshot(page, "dashboard-10k");

    // Every row is reachable by scrolling: the middle one and the last, in natural order of ids.
    const sorted = facts.map((f) => f.id).sort(natural);
    assert.deepEqual((await ids(page)).slice(0, 3), sorted.slice(0, 3));
    await scrollTo(page, 5000, sorted[5000]!);
    await scrollTo(page, SPEC.rollouts - 1, sorted.at(-1)!);
    assert.ok((await page.locator("table.rollout-table tbody tr").count()) < 100);

    // Sorting covers every rollout: the highest reward first, then by id descending.
    await page.click("table.rollout-table th[data-key=reward]");
    await page.click("table.rollout-table th[data-key=reward]");
    await page.waitForSelector("table.rollout-table th[data-key=reward]:has-text('▼')");
    const top = Math.max(...facts.map((f) => f.reward));
    await page
      .locator("table.rollout-table tbody tr[data-file] td:nth-child(6)")
      .first()
      .filter({ hasText: top.toFixed(2) })
      .waitFor();
    await page.click("table.rollout-table th[data-key=id]");
    await page.click("table.rollout-table th[data-key=id]");
    await page.waitForSelector("table.rollout-table th[data-key=id]:has-text('▼')");
    await page
      .locator("table.rollout-table tbody tr[data-file] td:nth-child(2)")
      .first()
      .filter({ hasText: sorted.at(-1)! })
      .waitFor();

    // Filtering covers every rollout: a task, a status and a model give exactly the rollouts written so.
    const want = facts
      .filter((f) => f.task === "task-0421" && f.status === "completed" && f.model === "model-b")
      .map((f) => f.id)
      .sort(natural)
      .reverse();
    assert.ok(want.length > 0);
    await page.fill(".rollouts input[type=search]", "task-0421");
    await page.selectOption("select[aria-label=status]", "completed");
    await page.fill("input[aria-label='metadata filter']", "policy.model=model-b");
    await counter(page)
      .filter({ hasText: `${want.length} of 10,000 rollouts` })
      .waitFor();
    await page
      .locator("table.rollout-table tbody tr[data-file]")
      .nth(want.length - 1)
      .waitFor();
    assert.deepEqual(await ids(page), want);
    const hi = facts.filter((f) => f.reward >= 0.9).length;
    await page.fill("input[aria-label='metadata filter']", "");
    await page.selectOption("select[aria-label=status]", "");
    await page.fill(".rollouts input[type=search]", "");
    await page.fill("input[aria-label=rewardMin]", "0.9");
    await counter(page)
      .filter({ hasText: `${hi.toLocaleString("en-US")} of 10,000 rollouts` })
      .waitFor();
    await page.fill("input[aria-label=rewardMin]", "");
    await counter(page).filter({ hasText: "10,000 of 10,000 rollouts" }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a second `rlenv view` of the run opens from the summary cache with the same rows and aggregates", {
    timeout: 300_000,
  }, async () => {
    const { page, errors } = await open();
    assert.equal(await page.locator(".card-status .big").textContent(), "10000");
    const mean = facts.reduce((s, f) => s + f.reward, 0) / facts.length;
    assert.equal(await page.locator(".mean-reward").textContent(), mean.toFixed(2));
    const sorted = facts.map((f) => f.id).sort(natural);
    await scrollTo(page, SPEC.rollouts - 1, sorted.at(-1)!);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
