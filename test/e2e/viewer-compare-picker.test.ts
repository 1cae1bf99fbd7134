import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Locator, Page } from "playwright-core";
import { type LargeRunSpec, largeRolloutFacts, writeLargeRun } from "../fixtures/large-run";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * The trajectory viewer's compare pickers on a 10,000-rollout run, through `rlenv view` (the
 * built CLI) in Chromium: each is a filterable combobox whose list draws only the rows in view
 * (a `<select>` held 10,000 `<option>`s and was as wide as its longest label), filtering by
 * id, task and reward finds a rollout, the keyboard chooses it and the compare opens, and the
 * picker keeps its width with a label of 200 characters (cut, whole in its tooltip).
 */
const skip = missing("chromium");
const SPEC: LargeRunSpec = { rollouts: 10_000, tasks: 500 };
const LONG_ID = `long-${"x".repeat(200)}-end`;
let browser: Browser;
let run: string;
const servers: ViewProcess[] = [];

/** One more rollout, a copy of the first with an id of 210 characters. */
function writeLongIdRollout(runDir: string): void {
  const first = largeRolloutFacts(0, SPEC).id;
  const lines = readFileSync(path.join(runDir, "rollouts", `${first}.jsonl`), "utf8")
    .trimEnd()
    .split("\n");
  const start = JSON.parse(lines[0]!) as { rollout_id: string };
  start.rollout_id = LONG_ID;
  lines[0] = JSON.stringify(start);
  writeFileSync(path.join(runDir, "rollouts", `${LONG_ID}.jsonl`), `${lines.join("\n")}\n`);
}

const picker = (page: Page, slot: number): { root: Locator; input: Locator; options: Locator; status: Locator } => {
  const root = page.locator(".compare-panel .picker").nth(slot);
  return {
    root,
    input: root.locator("input[role=combobox]"),
    options: root.locator("[role=listbox] [role=option]"),
    status: root.locator(".picker-status"),
  };
};

/** Polls an expression from outside the page (waitForFunction needs 'unsafe-eval', which the viewer's CSP forbids). */
async function until(page: Page, expression: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("compare pickers on a 10,000-rollout run", { skip }, () => {
  before(async () => {
    run = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-e2e-picker-")), "run");
    writeLargeRun(run, SPEC);
    writeLongIdRollout(run);
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("a window of rows in the DOM, a filter that finds a rollout, the keyboard chooses it and opens the compare", async () => {
    const self = largeRolloutFacts(0, SPEC);
    const v = await rlenvView(path.join(run, "rollouts", `${self.id}.jsonl`));
    servers.push(v);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(v.url);
    await page.waitForSelector(".detail .step[data-row='0']", { timeout: 60_000 });
    await page.click("button[data-tab='compare']");
    const p0 = picker(page, 0);
    await p0.input.click();
    // Every other rollout of the run is listed (10,000 + the long one, less the one open), a window of them drawn.
    await p0.status.filter({ hasText: "10,000 rollouts" }).waitFor({ timeout: 60_000 });
    assert.equal(await p0.input.getAttribute("aria-expanded"), "true");
    const listId = String(await p0.input.getAttribute("aria-controls"));
    assert.equal(await page.locator(`#${listId}`).getAttribute("role"), "listbox");
    const drawn = await p0.options.count();
    assert.ok(drawn > 5 && drawn < 40, `only the rows in view are drawn (${drawn})`);
    assert.equal(await page.locator("option").count(), 0, "no <option> elements");
    // Scrolled to its end, the list draws the last rows, still a window.
    await page.locator(`#${listId}`).evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await p0.options.filter({ hasText: "· reward" }).last().waitFor();
    await until(
      page,
      `(() => { const o = [...document.querySelectorAll("#${listId} [role=option]")]; return o.length > 0 && Number(o[o.length - 1].dataset.index) === 10000; })()`,
    );
    assert.ok((await p0.options.count()) < 40);

    // Filtering by task and a reward bound gives exactly the rollouts the fixture made so.
    const want = Array.from({ length: SPEC.rollouts }, (_, k) => largeRolloutFacts(k, SPEC)).filter(
      (f) => f.task === "task-0042" && f.reward >= 0.5,
    );
    assert.ok(want.length > 1, `the fixture has ${want.length} such rollouts`);
    await p0.input.fill("task-0042 reward>=0.5");
    await p0.status.filter({ hasText: `${want.length} of 10,000 match` }).waitFor();
    assert.deepEqual(
      (await p0.options.evaluateAll((os) => os.map((o) => o.getAttribute("data-value")))).sort(),
      want.map((f) => `rollouts/${f.id}.jsonl`).sort(),
    );
    // One rollout by its id; the keyboard walks the matches and Enter chooses.
    const target = largeRolloutFacts(42 + 500 * 7, SPEC);
    await p0.input.fill(target.id);
    await p0.status.filter({ hasText: "1 of 10,000 match" }).waitFor();
    await p0.input.press("ArrowDown");
    await p0.input.press("ArrowUp");
    const activeId = String(await p0.input.getAttribute("aria-activedescendant"));
    assert.match(String(await page.locator(`#${activeId}`).textContent()), new RegExp(`^${target.id} · ${target.task} · reward`));
    assert.equal(await page.locator(`#${activeId}`).getAttribute("role"), "option");
    await screenshot(page, "compare-picker-filtered");
    await p0.input.press("Enter");
    await page.waitForSelector(".compare-table .cmp-line", { timeout: 60_000 });
    assert.equal(await p0.root.getAttribute("data-value"), `rollouts/${target.id}.jsonl`);
    assert.equal(await p0.input.getAttribute("aria-expanded"), "false");
    assert.match(await p0.input.inputValue(), new RegExp(`^${target.id} · `));
    assert.equal(await page.locator(".cmp-head .cmp-col-head").count(), 2);

    // Escape closes the second picker without a choice; the first keeps its own.
    const p1 = picker(page, 1);
    await p1.input.click();
    await p1.input.fill("task-0001");
    await p1.options.first().waitFor();
    await p1.input.press("Escape");
    assert.equal(await p1.input.getAttribute("aria-expanded"), "false");
    assert.equal(await p1.input.inputValue(), "");
    assert.equal(await p1.root.getAttribute("data-value"), "");
    assert.equal(await page.locator(".cmp-head .cmp-col-head").count(), 2);

    // A label of 200 characters: cut with an ellipsis, whole in the tooltip; the picker keeps its width.
    const widthBefore = await p1.root.evaluate((el) => el.getBoundingClientRect().width);
    await p1.input.click();
    await p1.input.fill("long-xxxx");
    const long = p1.options.first();
    await long.waitFor();
    assert.equal(await long.getAttribute("title"), await long.textContent());
    assert.ok(await long.evaluate((el) => el.scrollWidth > el.clientWidth), "the long label is cut");
    await p1.input.press("Enter");
    await until(page, `document.querySelectorAll(".cmp-head .cmp-col-head").length === 3`);
    assert.match(String(await p1.input.getAttribute("title")), new RegExp(`^${LONG_ID} · `));
    const widths = await page.locator(".compare-panel .picker").evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().width));
    assert.equal(widths[1], widthBefore, `the picker kept its width (${widths})`);
    assert.ok(
      widths.every((w) => w <= 400),
      `pickers ${widths}`,
    );
    await p1.input.click();
    await screenshot(page, "compare-picker-long-label");
    await p1.input.press("Escape");
    assert.deepEqual(errors, []);
    await page.close();
  });
});
