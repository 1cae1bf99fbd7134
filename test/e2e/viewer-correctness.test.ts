import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeAuditFolder } from "../support/audit-report";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";
import { writeBigSecondLine, writeLiveRollout, writeSearchCiteRun } from "./support/correctness-runs";

/**
 * What the viewer must get right (issue 41, item 11), in Debian's Chromium through
 * `rlenv view`: citations after a search, bidi controls, a broken audit report, a huge diff
 * line, compare pickers, a step redrawn once its later lines are read, a stopped server.
 */
const skip = missing("chromium");
let browser: Browser;
let dir: string;
const servers: ViewProcess[] = [];

async function open(target: string): Promise<{ page: Page; errors: string[]; server: ViewProcess }> {
  const server = await rlenvView(target);
  servers.push(server);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(server.url);
  return { page, errors, server };
}

async function waitText(page: Page, selector: string, re: RegExp, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const el = page.locator(selector).first();
    const text = (await el.count()) ? String(await el.textContent()) : "";
    if (re.test(text)) return text;
    if (Date.now() > until) throw new Error(`${selector}: "${text.slice(0, 300)}" never matched ${re}`);
    await page.waitForTimeout(200);
  }
}

describe("viewer correctness in Chromium", { skip }, () => {
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-correct-"));
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("search then cite: the read page keeps its cited mark, the unread page is flagged; bidi shown; Reward tab has per-field rows", async () => {
    const { page, errors } = await open(writeSearchCiteRun(dir));
    await page.click("button[data-tab='documents']");
    await page.waitForSelector(".citation");
    const cards = page.locator(".citation");
    assert.equal(await cards.count(), 2);
    assert.match(String(await cards.nth(0).textContent()), /acme\.pdf p\.3 · step \d/, "the first citation links to the page read");
    assert.equal(await cards.nth(0).locator("mark.m-cite").textContent(), "$4,210 million");
    assert.equal(
      await page
        .locator(".page[data-page='0'] .ph")
        .textContent()
        .then((t) => /1 cited/.test(String(t))),
      true,
    );
    assert.equal(await cards.nth(1).locator(".badge").textContent(), "cited but never read");
    assert.match(String(await cards.nth(1).textContent()), /appeared only in search results/);
    // The search snippet's file name: its right-to-left override shown as a code point, not obeyed.
    const pages = String(await page.locator(".doc-col.pages").textContent());
    assert.match(pages, /report⟨U\+202E⟩txt\.exe/);
    assert.ok(!pages.includes("\u202E"));
    // The fields table: values stay on one line (ellipsized), and the reason column is wide enough for text, not a word per line.
    const cells = await page
      .locator("table.fields tbody tr")
      .first()
      .evaluate((tr) =>
        [...tr.querySelectorAll("td")].map((td) => ({
          cls: td.className,
          width: td.getBoundingClientRect().width,
          ws: (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(td).whiteSpace,
        })),
      );
    for (const c of cells.filter((x) => x.cls.includes("clip"))) assert.equal(c.ws, "nowrap");
    const reason = cells.find((x) => x.cls.includes("reason"));
    assert.ok(reason && reason.width >= 120, `the reason column is ${reason?.width} px wide`);
    await screenshot(page, "correctness-documents");
    await page.click("button[data-tab='reward']");
    await page.waitForSelector(".reward-table table.field-rows tbody tr");
    const rows = await page
      .locator("table.field-rows tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(rows, [
      ["revenue", "$4.21 billion", "$4,210 million", "✓ 1.00", "same amount"],
      [
        "net_income",
        "$464.7 million attributable to shareholders of the parent company",
        "$455 million",
        "✗ 0.00",
        "off by 2.1%: a long explanation of why the amounts differ that should wrap as text, not a word per line",
      ],
    ]);
    await screenshot(page, "correctness-reward-fields");
    // The search step's output in the Steps tab: the override is visible there too.
    await page.click("button[data-tab='steps']");
    await page.click(".vrow[data-index='2']");
    await waitText(page, ".detail .event.observation", /report⟨U\+202E⟩txt\.exe/);
    assert.deepEqual(errors, []);
  });

  test("an audit.json that is not JSON shows what is wrong with it, not a trajectory polling forever", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-badaudit-"));
    writeFileSync(path.join(out, "audit.json"), "{ not json at all\n");
    const { page } = await open(path.join(out, "audit.json"));
    const text = await waitText(page, ".error-banner", /audit\.json: not JSON/);
    assert.match(text, /Could not open the audit report/);
    assert.equal(await page.locator(".timeline").count(), 0, "no trajectory view");
    await screenshot(page, "correctness-audit-not-json");
  });

  test("a 20,000-character diff line keeps the audit table within the page; the line is cut with a way to see it all", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "rlenv-e2e-wideaudit-"));
    const { file } = writeAuditFolder(out);
    const report = JSON.parse(readFileSync(file, "utf8"));
    const task = report.environments[0].tasks.find((t: { id: string }) => t.id === "stats-mean");
    task.mutation.survivors[0].diff += `\n+${"x".repeat(20_000)}\n-\u202Eevil.py`;
    writeFileSync(file, JSON.stringify(report));
    const { page, errors } = await open(out);
    await page.waitForSelector(".audit-diff");
    const width = await page
      .locator("table.audit-tasks")
      .first()
      .evaluate((t) => t.getBoundingClientRect().width);
    assert.ok(width <= 1400, `the table is ${width} px wide`);
    assert.match(String(await page.locator(".audit-diff .line-more").textContent()), /\+19,601 characters/);
    assert.match(String(await page.locator(".audit-diff").textContent()), /-⟨U\+202E⟩evil\.py/);
    await screenshot(page, "correctness-audit-long-line");
    await page.click(".audit-diff .line-more");
    await page.waitForSelector(".audit-diff .dl.whole");
    const after = await page
      .locator("table.audit-tasks")
      .first()
      .evaluate((t) => t.getBoundingClientRect().width);
    assert.ok(after <= 1400, `the whole line wraps inside the table (${after} px)`);
    assert.deepEqual(errors, []);
  });

  test("a first step drawn before its large second line was read is drawn again once it is; compare pickers stay narrow", async () => {
    const { page, errors } = await open(writeBigSecondLine(dir));
    await page.waitForSelector(".detail .step[data-row='0']");
    await waitText(page, ".detail .step[data-row='0']", /END-OF-SYSTEM-MESSAGE/, 60_000);
    await page.click("button[data-tab='compare']");
    await page.waitForSelector(".compare-panel .picker");
    const widths = await page.locator(".compare-panel .picker").evaluateAll((ss) => ss.map((s) => s.getBoundingClientRect().width));
    assert.ok(
      widths.every((w) => w <= 400),
      `pickers ${widths}`,
    );
    assert.deepEqual(errors, []);
  });

  test("a live page whose server stopped says so in a banner and stops throwing", async () => {
    const { page, errors, server } = await open(writeLiveRollout(dir));
    await waitText(page, ".timeline .count", /live/);
    server.stop();
    await waitText(page, ".live-banner", /server stopped/i, 15_000);
    await screenshot(page, "correctness-server-stopped");
    assert.deepEqual(
      errors.filter((e) => e.startsWith("pageerror")),
      [],
      "no uncaught errors from the polling",
    );
  });
});
