import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type FixtureRuns, writeFixtureRuns } from "../fixtures/trajectories";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";
import { writeHostileRun, writeHugeRun } from "./support/hostile-runs";

/**
 * The viewer on what real trajectories throw at it, in Debian's Chromium through
 * `rlenv view`: hostile names and values, unchecked images, odd file formats, a
 * 200,000-event file, N-way compare, search and filters, and citations shown as the
 * cited page's text.
 */
const skip = missing("chromium");
let browser: Browser;
let dir: string;
let runs: FixtureRuns;
const servers: ViewProcess[] = [];

/** Waits until an element's text matches (a page function would need eval, which the page's CSP forbids). */
async function waitText(page: Page, selector: string, re: RegExp, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const el = page.locator(selector).first();
    const text = (await el.count()) ? String(await el.textContent()) : "";
    if (re.test(text)) return;
    if (Date.now() > until) throw new Error(`${selector}: "${text}" never matched ${re}`);
    await page.waitForTimeout(250);
  }
}

async function open(target: string, size = { width: 1400, height: 900 }): Promise<{ page: Page; errors: string[] }> {
  const v = await rlenvView(target);
  servers.push(v);
  const page = await browser.newPage({ viewport: size });
  const errors = watchErrors(page);
  await page.goto(v.url);
  return { page, errors };
}

describe("viewer on hostile and huge trajectories in Chromium", { skip }, () => {
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-hostile-"));
    runs = writeFixtureRuns(dir);
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("hostile rollout: Python names stay text, images checked, bidi names visible, BOM + spaced JSON + no final newline read, odd report fields shown", async () => {
    const { file } = writeHostileRun(dir);
    const { page, errors } = await open(file);
    await page.waitForSelector(".vrow[data-index='2']");
    assert.match(
      String(await page.locator("header.top").textContent()),
      /completed/,
      "the last line without a newline was read: not 'running'",
    );
    assert.equal(await page.locator("header.top .torn").count(), 0);
    await page.click(".vrow[data-index='0']");
    await page.waitForSelector(".detail .step[data-row='0']");
    const prompt = String(await page.locator(".detail .event.start .md").textContent());
    assert.match(prompt, /self\.__dict__, obj\.__init__ and foo\.__name__ == '__main__'; keep snake_case_names/);
    assert.equal(await page.locator(".detail .event.start .md strong").count(), 0, "no dunder became bold");
    assert.equal(await page.locator(".detail img.inline-img").count(), 1, "the real PNG is shown");
    assert.deepEqual(await page.locator(".detail .img-refused").allTextContents(), [
      "[image not shown: the data is not valid base64]",
      '[image not shown: type "image/svg+xml" is not PNG, JPEG or WebP]',
    ]);
    await page.click(".vrow[data-index='1']");
    await page.waitForSelector(".detail .step[data-row='1']");
    assert.match(String(await page.locator(".detail .event.observation").textContent()), /P⟨U\+202E⟩gnp\.701 \(added\)/);
    assert.deepEqual(await page.locator(".detail .event.observation .img-refused").allTextContents(), [
      "[rendered view not shown: the data is not a PNG image]",
    ]);
    assert.equal(await page.locator(".detail .event.observation img.render").count(), 1);
    // Spaced JSON still flags the step's artifacts in the timeline.
    assert.deepEqual(await page.locator(".vrow[data-index='1'] .icon").allTextContents(), ["diff", "img"]);
    await screenshot(page, "hostile-steps");
    await page.click("button[data-tab='documents']");
    await page.waitForSelector("table.fields tbody tr");
    const rows = await page
      .locator("table.fields tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)));
    assert.deepEqual(rows, [
      ["valueOf", "$12 million", "$455 million"],
      ["constructor", "null", "(not recorded)"],
      ["__proto__", '{"polluted":true}', "(not recorded)"],
      ["hasOwnProperty", "(missing from the report)", "(not recorded)"],
      ["revenue", "$4,210 million", "$4,210 million"],
    ]);
    assert.match(String(await page.locator("table.fields").textContent()), /gold on acme\.pdf p\.3 · step 1/);
    assert.equal(await page.locator(".page mark.m-submitted").count(), 1, "the submitted revenue figure is marked on the cited page");
    await screenshot(page, "hostile-documents");
    const state = await page.evaluate(`({ xss: window.__xss ?? null, polluted: ({}).polluted ?? null })`);
    assert.deepEqual(state, { xss: null, polluted: null });
    assert.deepEqual(errors, []);
  });

  test("document rollout: citations as the cited page's text, the matched figure marked, a link to the page, the gold of a wrong answer located", async () => {
    const dirR = path.join(runs.document, "rollouts");
    const failing = readdirSync(dirR).find((f) => readFileSync(path.join(dirR, f), "utf8").includes("got a per-share amount"))!;
    const { page, errors } = await open(path.join(dirR, failing));
    await page.click("button[data-tab='documents']");
    await page.waitForSelector(".citation .page-text");
    assert.equal(await page.locator(".citation").count(), 3);
    const cited = await page
      .locator(".citation")
      .evaluateAll((cs) => cs.map((c) => [...c.querySelectorAll("mark.m-cite")].map((m) => m.textContent).join("")));
    assert.deepEqual(cited, ["$4,210 million", "Springfield, Illinois", "$1.20 per share"]);
    // Two citations of one page are told apart by their titles: each names the words it cites.
    assert.deepEqual(await page.locator(".citation .cite-quote").allTextContents(), [
      " · “$4,210 million”",
      " · “Springfield, Illinois”",
      " · “$1.20 per share”",
    ]);
    assert.ok((await page.locator(".citation mark.m-submitted").count()) >= 3);
    assert.match(String(await page.locator(".citation").nth(2).textContent()), /Net income attributable to shareholders was \$455 million/);
    assert.deepEqual(await page.locator(".page mark.m-gold").allTextContents(), ["$455 million"]);
    const goldLink = page.locator("tr[data-field='net_income'] .gold-where .page-link");
    assert.match(String(await goldLink.textContent()), /acme-10k\.pdf p\.7 · step 3/);
    const link = page.locator(".citation").nth(2).locator(".page-link");
    const target = await link.getAttribute("data-page");
    await link.click();
    await page.waitForSelector(`.page.flash[data-page='${target}']`);
    assert.match(String(await page.locator(`.page[data-page='${target}'] .ph`).textContent()), /acme-10k\.pdf p\.7/);
    await screenshot(page, "document-citations");
    assert.deepEqual(errors, []);
  });

  test("a 200,000-event file: a 50,001-event step shown a window at a time; Compare with 66,668 rows keeps a screenful in the DOM", async () => {
    const { big, other } = writeHugeRun(dir);
    const { page, errors } = await open(big);
    await page.waitForSelector(".vrow[data-index='1']");
    await waitText(page, ".timeline .count", /^50,003 steps$/);
    await page.click(".vrow[data-index='1']");
    await page.waitForSelector(".detail .step[data-row='1']");
    assert.match(String(await page.locator(".detail .pager-range").first().textContent()), /lines 1–200 of 50,001 in this step/);
    assert.equal(await page.locator(".detail .event").count(), 200);
    await page.locator(".detail .step-pager button", { hasText: "last" }).first().click();
    await page.waitForSelector(".detail .step[data-from='50000']");
    assert.equal(await page.locator(".detail .event").count(), 1);
    assert.ok((await page.locator(".vrow").count()) < 100, "the timeline is virtual");
    await page.click("button[data-tab='compare']");
    await page.locator(".compare-panel input[data-slot='0']").fill(path.basename(other));
    await page.locator(`.compare-panel .picker-option[data-value='rollouts/${path.basename(other)}']`).click();
    await page.waitForSelector(".compare-table .cmp-line", { timeout: 120_000 });
    // The alignment is drawn as the files are read (partial replies, then the list grows): wait for the whole of it.
    const spacer = async () =>
      Number.parseFloat(String(await page.evaluate(`document.querySelector(".compare-table .vlist-spacer")?.style.height ?? "0"`)));
    for (let i = 0; i < 1200 && (await spacer()) < 66_668 * 40; i++) await new Promise((r) => setTimeout(r, 100));
    const lines = await page.evaluate(`document.querySelector(".compare-table .vlist-spacer").style.height`);
    assert.ok(Number.parseFloat(String(lines)) >= 66_668 * 40, `the list spans every aligned line (${lines})`);
    assert.ok((await page.locator(".compare-table .cmp-line").count()) < 100, "only a screenful of lines in the DOM");
    assert.ok(Number(await page.evaluate("document.getElementsByTagName('*').length")) < 5000);
    await page.locator(".compare-table .cmp-line[data-line='1']").click();
    await page.waitForSelector(".cmp-detail .cmp-step .step-pager");
    assert.equal(await page.locator(".cmp-detail .cmp-step").count(), 2);
    await screenshot(page, "compare-huge");
    assert.deepEqual(errors, []);
  });

  test("dashboard: search finds words in messages, calls and observations and opens the step; filters; compare four rollouts", async () => {
    const { page, errors } = await open(runs.code);
    await page.waitForSelector("table.rollout-table tbody tr");
    await page.fill("input.run-search", "def mean");
    await page.waitForSelector(".search-results .hit");
    assert.match(String(await page.locator(".search-status").textContent()), /match(es)? in 12 rollouts/);
    for (const t of await page.locator(".search-results .hit .snippet").allTextContents()) assert.match(t.toLowerCase(), /def|mean/);
    // Filters narrow the table and the search with it.
    await page.fill("input.meta-filter", "task.id=stats-mean");
    // The server filters: the rows are drawn once its page is back.
    await page.waitForSelector("table.rollout-table[aria-busy=false]");
    assert.equal(
      await page.locator("table.rollout-table tbody tr").count(),
      4,
      String(await page.locator("table.rollout-table tbody").textContent()),
    );
    await waitText(page, ".search-status", /in 4 rollouts/);
    await page.fill("input[data-key='rewardMin']", "1");
    await page.waitForSelector("table.rollout-table[aria-busy=false]");
    const shown = await page.locator("table.rollout-table tbody tr").count();
    assert.ok(shown <= 4);
    await screenshot(page, "dashboard-search");
    await page.fill("input[data-key='rewardMin']", "");
    await page.fill("input.meta-filter", "");
    await page.waitForSelector("table.rollout-table[aria-busy=false]");
    for (let i = 0; i < 4; i++) await page.locator("table.rollout-table tbody tr input[type=checkbox]").nth(i).check();
    await page.click("text=Compare selected");
    await page.waitForSelector(".compare-table .cmp-line");
    assert.equal(await page.locator(".cmp-head .cmp-col-head").count(), 4);
    await page.locator(".compare-table .cmp-line[data-line='1']").click();
    await page.waitForSelector(".cmp-detail .cmp-step .step");
    // Each column's step arrives on its own reply: wait for all four before counting.
    for (let i = 0; i < 150 && (await page.locator(".cmp-detail .cmp-step").count()) < 4; i++) await page.waitForTimeout(100);
    assert.equal(await page.locator(".cmp-detail .cmp-step").count(), 4);
    await screenshot(page, "compare-4");
    await page.goBack();
    await page.waitForSelector("input.run-search");
    await page.fill("input.run-search", "def mean");
    const hit = page.locator(".search-results .hit").first();
    await hit.waitFor();
    const row = Number(await hit.getAttribute("data-row"));
    await hit.click();
    await page.waitForSelector(`.vrow.selected[data-index='${row}']`);
    await page.waitForSelector(`.detail .step[data-row='${row}']`);
    assert.match(String(await page.locator(".detail").textContent()).toLowerCase(), /def|mean/);
    assert.deepEqual(errors, []);
  });
});
