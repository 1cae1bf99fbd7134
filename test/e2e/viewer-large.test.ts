import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type LargeRunSpec, largeRolloutFacts, writeLargeRun } from "../fixtures/large-run";
import { writeBigRollout } from "../fixtures/trajectories";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * Large runs in Debian's Chromium through `rlenv view` (the built CLI): a 2,000-rollout run's
 * dashboard keeps a screenful of rows in the DOM, filters give the right rows and clearing
 * them brings every row back; a large rollout compared with itself shows aligned lines.
 */
const skip = missing("chromium");
const SPEC: LargeRunSpec = { rollouts: 2000, tasks: 100 };
let browser: Browser;
let root: string;
const servers: ViewProcess[] = [];

async function open(target: string, query = ""): Promise<{ page: Page; errors: string[] }> {
  const v = await rlenvView(target);
  servers.push(v);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${v.url}${query}`);
  return { page, errors };
}

const counter = (page: Page) => page.locator(".rollouts .toolbar .meta-item").first();

describe("large runs in Chromium", { skip }, () => {
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-large-"));
    writeLargeRun(path.join(root, "run"), SPEC);
    await writeBigRollout(path.join(root, "big", "rollouts", "big.jsonl"), 3000, 12 * 1024 * 1024);
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("a 2,000-rollout dashboard: a screenful of rows in the DOM, filters give the right rows, scrolling reaches the last", async () => {
    const { page, errors } = await open(path.join(root, "run"));
    await page.waitForSelector("table.rollout-table tbody tr[data-file]", { timeout: 60_000 });
    await counter(page).filter({ hasText: "2,000 of 2,000 rollouts" }).waitFor();
    const drawn = await page.locator("table.rollout-table tbody tr").count();
    assert.ok(drawn > 10 && drawn < 100, `only the rows in view are drawn (${drawn})`);
    await page.locator(".rollouts").scrollIntoViewIfNeeded();
    await screenshot(page, "large-dashboard");

    const facts = Array.from({ length: SPEC.rollouts }, (_, k) => largeRolloutFacts(k, SPEC));
    const want = facts
      .filter((f) => f.task === "task-0042" && f.status === "completed" && f.model === "model-a")
      .map((f) => f.id)
      .sort();
    await page.fill(".rollouts input[type=search]", "task-0042");
    await page.selectOption("select[aria-label=status]", "completed");
    await page.fill("input[aria-label='metadata filter']", "policy.model=model-a");
    await counter(page)
      .filter({ hasText: `${want.length} of 2,000 rollouts` })
      .waitFor();
    const ids = (await page.locator("table.rollout-table tbody tr td:nth-child(2)").allTextContents()).sort();
    assert.deepEqual(ids, want);
    await screenshot(page, "large-dashboard-filtered");

    // Clearing the filters brings every row back; scrolling the box to its end draws the last rows.
    await page.fill("input[aria-label='metadata filter']", "");
    await page.selectOption("select[aria-label=status]", "");
    await page.fill(".rollouts input[type=search]", "");
    await counter(page).filter({ hasText: "2,000 of 2,000 rollouts" }).waitFor();
    await page.click("table.rollout-table th[data-key=id]");
    await page.waitForSelector("table.rollout-table th[data-key=id]:has-text('▼')");
    // The server sorts: the rows are drawn once its page is back.
    await page.waitForSelector("table.rollout-table[aria-busy=false]");
    const top = await page.locator("table.rollout-table tbody tr td:nth-child(2)").first().textContent();
    assert.equal(top, [...facts.map((f) => f.id)].sort(new Intl.Collator(undefined, { numeric: true }).compare).at(-1));
    await page.locator(".rollouts .vt-scroll").evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const lowest = [...facts.map((f) => f.id)].sort(new Intl.Collator(undefined, { numeric: true }).compare)[0]!;
    await page.locator("table.rollout-table tbody tr td:nth-child(2)", { hasText: new RegExp(`^${lowest}$`) }).waitFor();
    assert.ok((await page.locator("table.rollout-table tbody tr").count()) < 100);
    await screenshot(page, "large-dashboard-end");
    assert.deepEqual(errors, []);
  });

  test("a large rollout compared with itself shows its aligned lines, each step beside itself", async () => {
    const { page, errors } = await open(
      path.join(root, "big", "rollouts", "big.jsonl"),
      `&compare=${encodeURIComponent("rollouts/big.jsonl")}`,
    );
    await page.waitForSelector(".cmp-line[data-line='3']", { timeout: 60_000 });
    await page.locator(".cmp-line[data-line='1'] .cmp-cell .r1 b", { hasText: "Turn 0" }).first().waitFor();
    // While the file is still read, the panel asks for the alignment again and the list refetches its
    // last page: a line once drawn with its summaries keeps them meanwhile, never going back to "#N".
    await page.evaluate(`(() => {
      const seen = new Set();
      window.__lostSummaries = [];
      const check = () => {
        for (const line of document.querySelectorAll(".cmp-line")) {
          const i = line.dataset.line;
          const titles = [...line.querySelectorAll(".r1 b")].map((b) => b.textContent);
          if (titles.some((t) => !t.startsWith("#"))) seen.add(i);
          else if (seen.has(i)) window.__lostSummaries.push(i + ": " + titles.join(" | "));
        }
      };
      check();
      new MutationObserver(check).observe(document.body, { childList: true, subtree: true });
    })()`);
    const line2 = page.locator(".cmp-line[data-line='2'] .cmp-cell .r1 b");
    let cells: string[] = [];
    for (let i = 0; i < 100 && JSON.stringify(cells) !== JSON.stringify(["Turn 1", "Turn 1"]); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      cells = await line2.allTextContents();
    }
    assert.deepEqual(cells, ["Turn 1", "Turn 1"]);
    // Past a few of the panel's follow-ups of the alignment, and the list's refetches with them.
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(await page.evaluate("window.__lostSummaries"), [], "no drawn line went back to placeholders");
    await page.click(".cmp-line[data-line='2']");
    await page.waitForSelector(".cmp-detail .cmp-step[data-col='1'] .step");
    // The picker names the rollout compared with (waited for: the run's list that fills it may come after the lines).
    await page.waitForSelector(".compare-panel .picker[data-value='rollouts/big.jsonl']:has(input[aria-label='compare with'])", {
      timeout: 60_000,
    });
    await screenshot(page, "large-compare-self");
    assert.deepEqual(errors, []);
  });
});
